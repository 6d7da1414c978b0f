"""The engine contract as checks a game's author can run, with the standard library only (no pytest needed).

    from engine.testing import check_game
    check_game(GAME, seeds=range(5))          # every check, every player count, random legal games

Each `check_*` function plays seeded random legal games and raises AssertionError with a message naming the game,
the player count, the seed and the step. `check_game` runs them all; tests/engine/test_conformance.py runs them over
every registered game and the toy game (tests/workers/toygame.py) with seeds picked by hypothesis. The contract is
docs/architecture.md#the-engine-contract; the recipe that ends with this suite is
docs/architecture.md#adding-a-third-game-in-a-day.

Required of every game: the Game/State calls, `State.scores()`, `Game.seat_events()` (the base class's copy is
enough when every event is public) and `Game.view_scores()` (the base class reads a view's "scores" list).
Optional: `Game.determinize` and `State.seat_context` (for search bots), `State.options_at` and `State.resample`
may raise NotImplementedError; the checks of those parts then pass over them.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from engine.core import Decision, Game, IllegalAction, InvalidOptions, InvalidState, Outcome, State

STEP_CAP = 50_000  # a game longer than this fails loudly: it would never end
Perturb = Callable[[dict[str, Any], int, random.Random], dict[str, Any]]
OnStep = Callable[[State, int], None]
JUNK: list[Any] = [None, True, False, -1, 10**6, 2.5, "", "pass", [], {}, [0], {"action": 0}, [[None]]]


@dataclass
class Playthrough:
    """A finished random game: its final state, the choice indices and the events of each step."""

    game: Game
    players: int
    seed: int
    state: State
    choices: list[int] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)


def play_random(game: Game, players: int, seed: int, choice_seed: int | None = None, on_step: OnStep | None = None,
                options: dict[str, Any] | None = None) -> Playthrough:
    """Play a game to the end with uniformly random choices; on_step(state, step) runs before each choice.
    Raises AssertionError when the game passes STEP_CAP decisions."""
    rng = random.Random(seed if choice_seed is None else choice_seed)
    state = game.new_state(players, seed, options)
    run = Playthrough(game, players, seed, state)
    while (decision := state.decision()) is not None:
        assert len(run.choices) < STEP_CAP, f"{where(game, players, seed)}: no end after {STEP_CAP} steps"
        if on_step is not None:
            on_step(state, len(run.choices))
        choice = rng.randrange(len(decision.options))
        run.events.append(state.choose(choice))
        run.choices.append(choice)
    return run


def replay(game: Game, players: int, seed: int, choices: Sequence[int],
           options: dict[str, Any] | None = None) -> tuple[State, list[Any]]:
    """Re-play choice indices from a fresh state; return the state and the events of each step."""
    state = game.new_state(players, seed, options)
    return state, [state.choose(choice) for choice in choices]


def where(game: Game, players: int, seed: int, step: int | None = None) -> str:
    return f"{game.name} {players}p seed {seed}" + ("" if step is None else f" step {step}")


def as_json(value: Any) -> Any:
    """value as it comes back from a JSON file (tuples become lists); raises TypeError when it is not JSON."""
    return json.loads(json.dumps(value, allow_nan=False))


def strict(value: Any) -> str:
    """A spelling that tells 1, 1.0 and true apart, and ignores dict order."""
    return json.dumps(value, sort_keys=True)


def is_offered(action: Any, decision: Decision) -> bool:
    return strict(action) in {strict(option) for option in decision.options}


def sampled(rate: float, rng: random.Random, check: OnStep) -> OnStep:
    """check at a share `rate` of the steps, picked by rng."""
    def maybe(state: State, step: int) -> None:
        if rng.random() < rate:
            check(state, step)
    return maybe


# -- the end and the outcome ---------------------------------------------------------------------------------------

def assert_consistent_outcome(outcome: Outcome, players: int) -> None:
    """Ranks follow (score, *tiebreaks), higher first; equal keys share a rank."""
    assert len(outcome.scores) == len(outcome.ranks) == len(outcome.tiebreaks) == players, (
        f"an outcome for {players} players has {len(outcome.scores)} scores, {len(outcome.ranks)} ranks")
    keys = [(score, *breaks) for score, breaks in zip(outcome.scores, outcome.tiebreaks, strict=True)]
    for seat, key in enumerate(keys):
        assert outcome.ranks[seat] == 1 + sum(1 for other in keys if other > key), (
            f"seat {seat}: rank {outcome.ranks[seat]} does not follow keys {keys}")
    assert min(outcome.ranks) == 1, f"no seat ranks first: {outcome.ranks}"
    as_json(outcome.to_dict())


def assert_scores(state: State, players: int, at: str) -> None:
    """State.scores(): one int (not a bool) per seat."""
    scores = state.scores()
    assert isinstance(scores, list) and len(scores) == players, f"{at}: scores() {scores!r} is not {players} ints"
    assert all(isinstance(s, int) and not isinstance(s, bool) for s in scores), f"{at}: scores() {scores!r}"


def check_outcome(game: Game, players: int, seed: int, choice_seed: int) -> None:
    """The game ends; outcome() waits for the end and then adds up; scores() and view_scores() agree with it; an
    ended game takes no action."""
    def before_the_end(state: State, step: int) -> None:
        at = where(game, players, seed, step)
        assert state.outcome() is None, f"{at}: outcome() before the end"
        assert_scores(state, players, at)

    run = play_random(game, players, seed, choice_seed, on_step=before_the_end)
    at, outcome = where(game, players, seed, len(run.choices)), run.state.outcome()
    assert outcome is not None, f"{at}: decision() is None but outcome() is None too"
    assert_consistent_outcome(outcome, players)
    assert_scores(run.state, players, at)
    assert run.state.scores() == list(outcome.scores), f"{at}: scores() {run.state.scores()} != {outcome.scores}"
    shown = game.view_scores(run.state.view(None))
    assert shown == list(outcome.scores), f"{at}: view_scores of the final view {shown} != {outcome.scores}"
    assert_refused(run.state, None)
    try:
        run.state.choose(0)
    except IllegalAction:
        return
    raise AssertionError(f"{at}: choose(0) after the end did not raise IllegalAction")


# -- every offered option applies; clones are independent ----------------------------------------------------------

def check_options_apply(game: Game, players: int, seed: int, choice_seed: int, rate: float = 0.1) -> None:
    """At a share of the steps, every offered option applies to a clone(), the events are JSON, and neither
    playing on the clone nor the original changes the other."""
    rng = random.Random(choice_seed)

    def try_every_option(state: State, step: int) -> None:
        at, decision, before = where(game, players, seed, step), state.decision(), state.to_dict()
        assert decision is not None
        twin = state.clone()
        for index in range(len(decision.options)):
            twin = state.clone()
            assert twin == state, f"{at}: clone() differs from the state"
            as_json(twin.choose(index))
        assert state.to_dict() == before, f"{at}: playing on a clone() changed the original"
        kept = twin.to_dict()
        state.clone().choose(0)
        assert twin.to_dict() == kept, f"{at}: playing on one clone() changed another"

    play_random(game, players, seed, choice_seed, on_step=sampled(rate, rng, try_every_option))


# -- what was not offered is refused -------------------------------------------------------------------------------

def assert_refused(state: State, action: Any, at: str = "") -> None:
    """apply(action) raises IllegalAction with a message and leaves the state exactly as it was."""
    before, decision = state.to_dict(), state.decision()
    try:
        state.apply(action)
    except IllegalAction as exc:
        assert str(exc), f"{at}: IllegalAction for {action!r} has no message"
    else:
        raise AssertionError(f"{at}: apply({action!r}) was accepted, but it was not offered")
    assert state.to_dict() == before, f"{at}: refused action {action!r} changed the state"
    assert state.decision() == decision, f"{at}: refused action {action!r} changed the decision"


def near_misses(option: Any, depth: int = 0) -> list[Any]:
    """Actions that look like option but are not it: a number off by one, a key missing or added, and so on."""
    misses: list[Any] = [None, [option], {"action": option}]
    if isinstance(option, bool):
        misses += [not option, "true" if option else "false"]
    elif isinstance(option, int):
        misses += [option + 1, option - 1, option + 1000, -option - 1, str(option)]
    elif isinstance(option, str):
        misses += [option + "x", option[:-1], option.swapcase(), ""]
    elif isinstance(option, list):
        misses += [option + [0], option[:-1], list(reversed(option))]
        for i, item in enumerate(option[:3]):
            misses += [option[:i] + [m] + option[i + 1:] for m in near_misses(item, depth + 1)[3:6]]
    elif isinstance(option, dict):
        misses += [{**option, "bogus_key": 1}]
        for key in sorted(option)[:4]:
            misses.append({k: v for k, v in option.items() if k != key})
            if depth < 2:
                misses += [{**option, key: m} for m in near_misses(option[key], depth + 1)[3:7]]
    return misses


def lookalikes(option: Any) -> list[Any]:
    """option with an integer spelled as a float or a bool: equal in Python, not the offered action."""
    if isinstance(option, bool):
        return [int(option)]
    if isinstance(option, int):
        return [float(option)] + ([bool(option)] if option in (0, 1) else [])
    if isinstance(option, list):
        return [option[:i] + [m] + option[i + 1:] for i, item in enumerate(option) for m in lookalikes(item)]
    if isinstance(option, dict):
        return [{**option, k: m} for k in sorted(option) for m in lookalikes(option[k])]
    return []


def check_refusals(game: Game, players: int, seed: int, choice_seed: int, rate: float = 0.05,
                   junk: Sequence[Any] = JUNK) -> None:
    """At a share of the steps: junk, near misses and float or bool lookalikes of the offered options are all
    refused with IllegalAction, leaving no trace."""
    rng = random.Random(choice_seed)

    def probe(state: State, step: int) -> None:
        decision = state.decision()
        assert decision is not None
        candidates = rng.sample(list(junk), min(3, len(junk)))
        for option in rng.sample(list(decision.options), min(3, len(decision.options))):
            misses = near_misses(option)
            candidates += rng.sample(misses, min(6, len(misses)))
        candidates += [m for option in decision.options[:5] for m in lookalikes(option)][:10]
        for action in candidates:
            if not is_offered(action, decision):
                assert_refused(state, action, where(game, players, seed, step))

    play_random(game, players, seed, choice_seed, on_step=sampled(rate, rng, probe))


# -- dicts, JSON, replays and seeds --------------------------------------------------------------------------------

def assert_same_state(twin: State, state: State, players: int, with_views: bool, at: str) -> None:
    assert twin.to_dict() == state.to_dict() and twin == state, f"{at}: the copy's to_dict() differs"
    none = Decision(-1, "", [])
    assert as_json((twin.decision() or none).to_dict()) == as_json((state.decision() or none).to_dict()), (
        f"{at}: the copy's decision differs")
    for seat in [None, *range(players)] if with_views else []:
        assert twin.view(seat) == state.view(seat), f"{at}: view({seat}) differs after the round trip"


def check_round_trips(game: Game, players: int, seed: int, choice_seed: int, rate: float = 0.1) -> None:
    """state_from_dict(to_dict()) is the same state at every step (and leaves the original alone); through JSON
    text, with every view compared, at a share of them."""
    rng = random.Random(choice_seed)

    def round_trip(state: State, step: int) -> None:
        at, data = where(game, players, seed, step), state.to_dict()
        assert_same_state(game.state_from_dict(data), state, players, False, at)
        assert state.to_dict() == data, f"{at}: state_from_dict changed the state it was copied from"
        if rng.random() < rate:
            text = json.dumps(data, allow_nan=False)
            assert_same_state(game.state_from_dict(json.loads(text)), state, players, True, at)

    run = play_random(game, players, seed, choice_seed, on_step=round_trip)
    round_trip(run.state, len(run.choices))


def check_json_copy_plays_on(game: Game, players: int, seed: int, choice_seed: int, cut: float) -> None:
    """A JSON copy of the state at a share `cut` of the game plays on exactly like the original."""
    run = play_random(game, players, seed, choice_seed)
    k = int(cut * len(run.choices))
    head, _ = replay(game, players, seed, run.choices[:k])
    twin = game.state_from_dict(json.loads(json.dumps(head.to_dict())))
    events = [twin.choose(choice) for choice in run.choices[k:]]
    assert twin == run.state, f"{where(game, players, seed, k)}: a JSON copy played on to another end"
    assert as_json(events) == as_json(run.events[k:]), f"{where(game, players, seed, k)}: other events"


def check_replay(game: Game, players: int, seed: int, choice_seed: int) -> None:
    """Replaying the action log from the seed reproduces the game: state, events and outcome."""
    at = where(game, players, seed)
    assert game.new_state(players, seed) == game.new_state(players, seed), f"{at}: two fresh states differ"
    run = play_random(game, players, seed, choice_seed)
    state, events = replay(game, players, seed, run.choices)
    assert state == run.state, f"{at}: the replayed game ends in another state"
    assert as_json(events) == as_json(run.events), f"{at}: the replayed game has other events"
    assert state.outcome() == run.state.outcome(), f"{at}: the replayed game has another outcome"


def game_trace(run: Playthrough) -> str:
    return json.dumps([run.choices, run.events, run.state.view(None)], sort_keys=True)


def check_determinism(game: Game, players: int, seeds: Sequence[int] = range(12)) -> None:
    """The same seed gives the same game; different seeds usually give different ones (5 in 6 at least)."""
    first = game_trace(play_random(game, players, seeds[0], choice_seed=5))
    assert first == game_trace(play_random(game, players, seeds[0], choice_seed=5)), (
        f"{where(game, players, seeds[0])}: the same seed and choices gave two games")
    traces = {game_trace(play_random(game, players, seed, choice_seed=0)) for seed in seeds}
    assert len(traces) * 6 >= len(seeds) * 5, f"{game.name} {players}p: {len(traces)} games from {len(seeds)} seeds"


# -- hidden information ----------------------------------------------------------------------------------------------

def check_hidden(game: Game, players: int, seed: int, choice_seed: int, perturb: Perturb, rate: float = 0.05,
                 hidden_tokens: Callable[[dict[str, Any], int], Iterable[str]] | None = None) -> None:
    """At a share of the steps, each seat's view is plain JSON and stays the same when `perturb(state_dict, seat,
    rng)` changes what is hidden from that seat; so does the pending decision of that seat. `hidden_tokens` (when
    given) names strings hidden from the seat that its view must not hold."""
    rng, changed = random.Random(choice_seed), []

    def check(state: State, step: int) -> None:
        at, data, decision = where(game, players, seed, step), state.to_dict(), state.decision()
        for seat in range(players):
            view = state.view(seat)
            assert as_json(view) == view, f"{at}: view({seat}) is not plain JSON"
            perturbed = perturb(copy.deepcopy(data), seat, rng)
            changed.append(perturbed != data)
            try:
                other = game.state_from_dict(perturbed)
            except InvalidState as exc:
                raise AssertionError(f"{at}: the perturbation for seat {seat} is not a valid state: {exc}") from exc
            assert other.view(seat) == view, f"{at}: view({seat}) shows information hidden from it"
            if decision is not None and decision.seat == seat:
                assert other.decision() == decision, f"{at}: seat {seat}'s decision depends on what it cannot see"
            text = json.dumps(view)
            leaked = [t for t in (hidden_tokens(data, seat) if hidden_tokens else ()) if t in text]
            assert not leaked, f"{at}: view({seat}) names hidden cards {leaked}"

    play_random(game, players, seed, choice_seed, on_step=sampled(rate, rng, check))
    assert not changed or any(changed), f"{where(game, players, seed)}: the perturbation never changed anything"


# -- snapshots, scores per view, seat events, positions --------------------------------------------------------------

def scramble(value: Any) -> None:
    """Mutate a JSON document in place, as a careless in-process bot might."""
    if isinstance(value, dict):
        for key in list(value):
            scramble(value[key])
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in value:
            scramble(item)
        value.append("scrambled")


def check_snapshots(game: Game, players: int, seed: int, choice_seed: int, rate: float = 0.02) -> None:
    """Views and dicts handed out are snapshots: mutating them changes nothing, and the game going on changes
    none of them."""
    rng, taken = random.Random(choice_seed), list[tuple[int, Any, Any]]()

    def hand_out_and_mutate(state: State, step: int) -> None:
        decision = state.decision()
        assert decision is not None
        taken.extend((step, v, copy.deepcopy(v)) for v in (state.view(decision.seat), state.view(None),
                                                            state.to_dict()))
        before = state.to_dict()
        for value in (state.view(decision.seat), state.view(None), state.to_dict()):
            scramble(value)
        assert state.to_dict() == before, f"{where(game, players, seed, step)}: mutating a view changed the state"

    play_random(game, players, seed, choice_seed, on_step=sampled(rate, rng, hand_out_and_mutate))
    for step, value, snapshot in taken:
        assert value == snapshot, f"{where(game, players, seed, step)}: a view or dict changed as the game went on"


def check_seat_facing(game: Game, players: int, seed: int, choice_seed: int, rate: float = 0.05) -> None:
    """view_scores() gives one int per seat from every seat's view and the omniscient one; seat_events() gives
    each seat a JSON copy of each step's events; where the game determinizes, a determinization from a seat's
    view, history and context gives that seat's view and decision, the same for the same seed."""
    rng, state = random.Random(choice_seed), game.new_state(players, seed)
    history: list[list[Any]] = [[] for _ in range(players)]
    for step in range(STEP_CAP):
        at, decision, probed = where(game, players, seed, step), state.decision(), rng.random() < rate
        for seat in [None, *range(players)] if probed or decision is None else []:
            shown = game.view_scores(state.view(seat))
            assert len(shown) == players and all(type(s) is int for s in shown), f"{at}: view_scores {shown!r}"
        if decision is None:
            return
        if probed:
            _check_determinize(game, state, history, at)
        events = state.choose(rng.randrange(len(decision.options)))
        for seat in range(players):
            seen = game.seat_events(seat, events)
            assert as_json(seen) == seen, f"{at}: seat_events({seat}) is not JSON"
            history[seat] += seen
    raise AssertionError(f"{where(game, players, seed)}: no end after {STEP_CAP} steps")


def _check_determinize(game: Game, state: State, history: list[list[Any]], at: str) -> None:
    decision = state.decision()
    if decision is None:
        return
    seat, view = decision.seat, state.view(decision.seat)
    try:
        context = state.seat_context(seat)
        sample = game.determinize(seat, view, history[seat], 7, context)
    except NotImplementedError:
        return  # optional: a game without search support
    assert sample.view(seat) == view, f"{at}: a determinization for seat {seat} shows it another view"
    assert sample.decision() == decision, f"{at}: a determinization for seat {seat} has another decision"
    again = game.determinize(seat, view, history[seat], 7, context)
    assert again.to_dict() == sample.to_dict(), f"{at}: two determinizations from the same seed differ"


def check_positions(game: Game, players: int, seed: int, choice_seed: int, rate: float = 0.1) -> None:
    """apply(a) is apply(a, advance=False) then advance(): the same events in order and the same state; a settled
    state's advance() takes nothing; a state loaded from its dict is settled exactly when the original is."""
    rng = random.Random(choice_seed)

    def split(state: State, step: int) -> None:
        at, decision = where(game, players, seed, step), state.decision()
        assert decision is not None and state.settled, f"{at}: a pending decision on a state that is not settled"
        assert state.clone().advance() == [], f"{at}: advance() on a settled state took steps"
        action = decision.options[rng.randrange(len(decision.options))]
        whole, part = state.clone(), state.clone()
        events = whole.apply(action)
        answer = part.apply(action, advance=False)
        loaded = game.state_from_dict(part.to_dict())
        assert loaded.settled == part.settled, f"{at}: a loaded position's settled is not {part.settled}"
        assert as_json(answer + part.advance()) == as_json(events), f"{at}: apply(advance=False) + advance() differs"
        assert part == whole, f"{at}: apply(advance=False) then advance() ends in another state"

    play_random(game, players, seed, choice_seed, on_step=sampled(rate, rng, split))


# -- bad input -------------------------------------------------------------------------------------------------------

def expect(error: type[Exception], call: Callable[[], object], what: str) -> None:
    """call() raises error (ValueError subclasses count), with a message."""
    try:
        call()
    except error as exc:
        assert str(exc), f"{what}: {error.__name__} without a message"
        return
    except Exception as exc:  # noqa: BLE001 - the wrong kind of error is the finding
        raise AssertionError(f"{what}: raised {type(exc).__name__}({exc}), not {error.__name__}") from exc
    raise AssertionError(f"{what}: no {error.__name__} raised")


def check_bad_input(game: Game, players: int, seed: int = 1) -> None:
    """A bool or text seed is refused (InvalidOptions); a seat the game does not have raises ValueError in view()
    and seat_events(); a bool or float spelling of an offered number is refused (IllegalAction), and so is a bool
    choice; apply() takes advance=False."""
    name = f"{game.name} {players}p"
    bad: Any
    for bad in (True, False, "1", 1.0, None):
        expect(InvalidOptions, partial(game.new_state, players, bad), f"{name}: new_state(seed={bad!r})")
    state = game.new_state(players, seed)
    seat: Any
    for seat in (players, players + 4, -1, True, "0", 1.0):
        expect(ValueError, partial(state.view, seat), f"{name}: view({seat!r})")
    for seat in (-1, True, "0"):
        expect(ValueError, partial(game.seat_events, seat, []), f"{name}: seat_events({seat!r}, [])")
    decision = state.decision()
    assert decision is not None, f"{name}: a fresh game has no decision"
    for action in (True, False, 1.0, 0.0):
        if not is_offered(action, decision):
            assert_refused(state, action, f"{name}: apply({action!r})")
    expect(IllegalAction, partial(state.choose, True), f"{name}: choose(True)")
    before = state.to_dict()
    expect(IllegalAction, lambda: state.apply(None, advance=False), f"{name}: apply(None, advance=False)")
    assert state.to_dict() == before, f"{name}: a refused apply(advance=False) changed the state"
    try:
        state.apply(decision.options[0], advance=False)
    except TypeError as exc:
        raise AssertionError(f"{name}: apply(action, advance=False) is part of the contract: {exc}") from exc


# -- all of it -------------------------------------------------------------------------------------------------------

def check_game(game: Game, seeds: Iterable[int] = range(3), perturb: Perturb | None = None) -> None:
    """Every check above, at every player count, one random game per seed. `perturb(state_dict, seat, rng)` changes
    what is hidden from seat (without it the hidden-information check is not run). Raises AssertionError."""
    for players in range(game.min_players, game.max_players + 1):
        check_bad_input(game, players)
        check_determinism(game, players)
        for seed in seeds:
            for check in (check_outcome, check_options_apply, check_refusals, check_round_trips, check_replay,
                          check_snapshots, check_seat_facing, check_positions):
                check(game, players, seed, seed + 1)
            check_json_copy_plays_on(game, players, seed, seed + 1, cut=0.5)
            if perturb is not None:
                check_hidden(game, players, seed, seed + 1, perturb)
