"""The worker's decide lines (workers.sandbox.encode_line, orjson) are the bytes protocol.encode would write."""

from __future__ import annotations

import random

import pytest

from engine import load_game, protocol
from workers.sandbox.pipes import encode_line


@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_every_decide_line_of_a_whole_game_is_the_standard_encoding(game: str) -> None:
    state = load_game(game).new_state(4, 3, None)
    rng = random.Random(3)
    clock = {"move_ms": 1000, "bank_ms": 10000}
    last: dict[int, object] = {}
    lines = 0
    while (decision := state.decision()) is not None:
        view = state.view(decision.seat)
        patch = protocol.view_patch(last[decision.seat], view) if decision.seat in last else None
        for message in (protocol.decide(lines, view, decision, clock),
                        protocol.decide(lines, None, decision, clock, patch or [])):
            assert encode_line(message) == protocol.encode(message)
        last[decision.seat] = view
        lines += 1
        state.choose(rng.randrange(len(decision.options)))
    assert lines > 100


@pytest.mark.parametrize("message", [{"type": "x", "keys": {1: "a"}}, {"type": "x", "n": 1 << 70},
                                     {"type": "x", "text": "é ☃ \u2028"}])
def test_what_orjson_refuses_or_writes_otherwise_gets_the_standard_encoding(message: dict[str, object]) -> None:
    assert encode_line(message) == protocol.encode(message)


def test_a_line_over_the_limit_is_refused_as_protocol_encode_refuses_it() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        encode_line({"type": "decide", "view": "x" * protocol.MAX_LINE})
