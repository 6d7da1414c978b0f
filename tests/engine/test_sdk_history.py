"""The SDK's side of protocol 3: it asks for its history, keeps it and the context, determinizes from them, and its
clock (Bot.time_left)."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from engine import load_game, protocol, sdk

CLOCK = {"move_ms": 200, "bank_ms": 1000}


def _stream(game_name: str, seed: int, seat: int) -> tuple[bytes, list[list[Any]], list[dict[str, Any]]]:
    """A whole random 2-player game as the engine writes it to `seat` at version 3 (patches, events, context), with
    the history and the view it must have at each of its decisions."""
    game = load_game(game_name)
    state = game.new_state(2, seed)
    rng = random.Random(seed)
    lines = [protocol.encode(protocol.hello(game.name, game.rules_version, seat, 2, {}, CLOCK, history=True))]
    histories: list[list[Any]] = []
    views: list[dict[str, Any]] = []
    history: list[Any] = []
    pending: list[Any] = []
    sent: Any = None
    while (decision := state.decision()) is not None:
        if decision.seat == seat:
            view = state.view(seat)
            patch = protocol.view_patch(sent, view) if sent is not None else None
            lines.append(protocol.encode(protocol.decide(len(lines), view, decision, CLOCK, patch, pending,
                                                         state.seat_context(seat))))
            history += pending
            histories.append(list(history))
            views.append(view)
            sent, pending = view, []
        pending += game.seat_events(seat, state.choose(rng.randrange(len(decision.options))))
    return b"".join(lines), histories, views


class _Searcher:
    """A bot that notes its history at each decision and checks a determinization against its view."""

    def __init__(self) -> None:
        self.bot = sdk.Bot()
        self.histories: list[list[Any]] = []
        self.mismatches = 0
        self.left: list[float] = []

    def act(self, view: dict[str, Any], decision: dict[str, Any]) -> int:
        self.left.append(self.bot.time_left())
        self.histories.append(json.loads(json.dumps(self.bot.history)))
        world = self.bot.determinize(view, len(self.histories))
        self.mismatches += world.view(self.bot.seat) != view or world.decision().options != decision["options"]
        return 0 if len(decision["options"]) == 1 else random.Random(len(self.histories)).randrange(
            len(decision["options"]))


@pytest.mark.parametrize(("game", "seed", "seat"), [("evolution", 4, 0), ("evolution", 5, 1), ("marine", 4, 1)])
def test_the_sdk_keeps_the_seats_history_and_determinizes_consistently_from_it(game: str, seed: int,
                                                                               seat: int) -> None:
    stream, histories, _ = _stream(game, seed, seat)
    searcher = _Searcher()
    stdout = io.BytesIO()
    sdk.run(searcher.act, stdin=io.BytesIO(stream), stdout=stdout, bot=searcher.bot)
    assert stdout.getvalue().startswith(b'{"type":"hello","views":"patch","reuse":true,"history":true}\n')
    assert searcher.histories == histories and histories[-1]
    assert searcher.mismatches == 0


def test_a_version_2_engine_gets_the_version_2_hello_and_the_bot_no_history() -> None:
    decision = protocol.decide(1, {}, _pick(), CLOCK)
    lines = [protocol.hello("evolution", "1", 0, 2, {}, CLOCK), decision, protocol.result({})]
    stdout = io.BytesIO()
    bot = sdk.run(lambda view, d: 0, stdin=io.BytesIO(b"".join(protocol.encode(m) for m in lines)), stdout=stdout)
    assert stdout.getvalue().splitlines()[0] == b'{"type":"hello","views":"patch","reuse":true}'
    assert bot.history == [] and bot.context is None


def test_time_left_counts_down_from_the_moves_clock_and_adds_the_bank_when_asked() -> None:
    bot = sdk.Bot()
    bot.clock = {"move_ms": 200, "bank_ms": 1000}
    bot.started -= 0.05  # the decide was read 50 ms ago
    assert bot.time_left() <= 150 and bot.time_left(bank=True) <= 1150
    assert bot.time_left(bank=True) - bot.time_left() == pytest.approx(1000, abs=1)
    bot.started -= 1.0
    assert bot.time_left() < 0


def test_the_sdk_loads_the_game_and_rules_version_its_hello_names() -> None:
    bot = sdk.Bot()
    game = load_game("marine")
    bot.hello = {"game": "marine", "rules_version": game.rules_version}
    assert bot.game is game
    assert sdk.sim.load_game("evolution") is load_game("evolution")


def _pick() -> Any:
    from engine.core import Decision

    return Decision(seat=0, kind="pick", options=["a", "b"])
