"""The match loop: one game between seat players, with faults, forfeits and the clock. No database here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Game, State, load_game, protocol
from engine.core import Outcome
from workers.metrics import count_fault
from workers.seats import Clock, Reply, SeatDied, SeatPlayer, finish_seats, start_seats

DEFAULT_CLOCK = Clock()
DEFAULT_CHOICE = 0  # the documented default on a fault: the first option
                    # (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox)


@dataclass
class PlayResult:
    """Everything a replay and a result need: the action log, the outcome and each seat's faults."""

    actions: list[dict[str, Any]] = field(default_factory=list)
    outcome: Outcome | None = None
    faults: list[int] = field(default_factory=list)
    forfeited: list[bool] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)


@dataclass
class Start:
    """Where a branch's bots take over (docs/branches.md): the position, and the action records that led there."""

    state: State
    prefix: list[dict[str, Any]]


def play_game(
    game_name: str,
    num_players: int,
    seed: int,
    options: dict[str, Any],
    players: Sequence[SeatPlayer],
    clock: Clock = DEFAULT_CLOCK,
    max_faults: int = 3,
    on_action: Callable[[list[dict[str, Any]]], None] | None = None,
    start: Start | None = None,
) -> PlayResult:
    """Play one game to the end. Bot faults never raise: the seat plays the default, then forfeits.

    on_action, if given, is called with the action log so far after each action (the runner's live progress).
    start, for a branch: the bots play on from start.state, and the action log begins with start.prefix.
    """
    game = load_game(game_name)
    full_options = game.validate_options(options)
    state = start.state if start else game.new_state(num_players, seed, full_options)
    result = PlayResult(actions=list(start.prefix) if start else [], faults=[0] * num_players,
                        forfeited=[False] * num_players)
    banks = [clock.bank_ms] * num_players
    history = offers_history(state)
    hellos = [protocol.hello(game.name, game.rules_version, seat, num_players, full_options, clock.to_dict(),
                             history=history) for seat in range(num_players)]
    started = start_seats(players, hellos)
    result.forfeited = [not ok for ok in started]
    for number, player in enumerate(players):
        if hasattr(player, "follow"):  # a sandboxed seat makes its views from the state (State.seat_patch)
            player.follow(state, number)
    seq, holder = len(result.actions), -1  # seq is the step a decision makes, a branch's too (replays/links.py)
    table = _Table(players, history)
    while (decision := state.decision()) is not None:
        seat = decision.seat
        seq += 1
        if seat != holder:  # only the seat holding the decision may compute (docs/bots.md, "The freezer")
            table.hand_turn(seat, holder)
            holder = seat
        if table.wanting[seat]:
            players[seat].set_context(state.seat_context(seat))  # type: ignore[attr-defined]
        reply = _ask(table, seq, state, decision, banks[seat], result)
        if table.wanting[seat]:  # its hello may have been read during its decide; once it wants none, it never will
            table.wanting[seat] = getattr(players[seat], "wants_events", False)
        banks[seat] = max(0, banks[seat] - max(0, reply.ms - clock.move_ms))
        record: dict[str, Any] = {"seat": seat, "choice": reply.choice, "ms": reply.ms}
        if reply.cpu_ms is not None:
            record["cpu_ms"] = reply.cpu_ms
        if reply.fault:
            record["fault"] = reply.fault
            count_fault(reply.fault)
            result.faults[seat] += 1
            if result.faults[seat] >= max_faults:
                result.forfeited[seat] = True
                _stop(players[seat])
        result.actions.append(record)
        events = state.choose(reply.choice)
        if events and True in table.wanting:
            hand_events(game, players, events, table.wanting)
        if on_action is not None:
            on_action(result.actions)
    result.outcome = forfeit_last(state.outcome(), result.forfeited)
    result.logs = finish_seats(players, result.outcome.to_dict())
    return result


def offers_history(state: State) -> bool:
    """Whether the game can give a seat its history and context (protocol 3, docs/bots.md "The protocol")."""
    try:
        state.seat_context(0)
    except NotImplementedError:
        return False
    return True


def hand_events(game: Game, players: Sequence[SeatPlayer], events: list[Any], wanting: Sequence[bool]) -> None:
    """Each seat that may want its history (wanting) gets the events as its seat saw them. Only sandboxed seats keep
    them (workers/sandbox/seat.py, add_events); built-in bots have no use for them. A game whose events are all public
    (it keeps Game.seat_events, a copy) copies them once for every seat: the seats only encode them."""
    public = type(game).seat_events is Game.seat_events
    seen: list[Any] | None = None
    for seat, player in enumerate(players):
        if wanting[seat]:
            if seen is None or not public:
                seen = game.seat_events(seat, events)
            player.add_events(seen)  # type: ignore[attr-defined]


class _Table:
    """What the loop calls on the seats at every decision, looked up once a match: through a wrapper
    (workers/seats.py SeatWrapper) each lookup is a failed one first, then __getattr__."""

    def __init__(self, players: Sequence[SeatPlayer], history: bool) -> None:
        self.decides: list[Callable[[int, dict[str, Any] | None, Any, int], Reply]] = [
            player.decide for player in players]
        # A seat that follows the state (SandboxedSeat.follow) makes its own views.
        self.needs_view = [bool(player.needs_view) and not hasattr(player, "follow") for player in players]
        # Built-ins hand nothing over: only seats with a process are paused (workers.seats.hand_turn).
        self.pauses = {number: player.pause for number, player in enumerate(players) if player.has_process}
        # Whether a seat may want its events (protocol 3): until its hello is read, then if it asked; the loop asks
        # again after each of its decides, where its hello is read.
        self.wanting = [history and bool(getattr(player, "wants_events", False)) for player in players]

    def hand_turn(self, seat: int, holder: int) -> None:
        """workers.seats.hand_turn, with the pauses looked up once, from holder (-1: nobody yet) to seat. Only the
        holder can need its pause: every other seat was paused at an earlier hand-off (the first pauses them all)
        and stays paused until it decides, which it does only holding the decision."""
        if holder >= 0:
            pause = self.pauses.get(holder)
            if pause is not None:
                pause()
            return
        for number, pause in self.pauses.items():
            if number != seat:
                pause()


def _stop(player: SeatPlayer) -> None:
    """A forfeited seat only plays defaults from now on: stop its process now, not at the end of the match."""
    player.close()


def _ask(table: _Table, seq: int, state: Any, decision: Any, bank_ms: int, result: PlayResult) -> Reply:
    seat = decision.seat
    if result.forfeited[seat]:
        return Reply(choice=DEFAULT_CHOICE, ms=0)
    view = state.view(seat) if table.needs_view[seat] else None
    try:
        reply: Reply = table.decides[seat](seq, view, decision, bank_ms)
    except SeatDied as exc:
        result.forfeited[seat] = True
        return Reply(choice=DEFAULT_CHOICE, ms=0, fault=exc.code, detail=str(exc))
    if reply.fault is None and not 0 <= reply.choice < len(decision.options):
        return Reply(choice=DEFAULT_CHOICE, ms=reply.ms, fault="out_of_range", detail=f"choice {reply.choice}")
    return reply


def forfeit_last(outcome: Outcome | None, forfeited: Sequence[bool]) -> Outcome:
    """Forfeited seats rank last (sharing the last rank); the others keep their order."""
    assert outcome is not None, "the game loop ended without an outcome"
    return outcome.with_forfeits(forfeited)
