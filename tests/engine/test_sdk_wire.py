"""The SDK's side of the wire as a bot's author relies on it: what its hello asks for (docs/bots.md, "The SDK")."""

from __future__ import annotations

import io

from engine import protocol, sdk

CLOCK = {"move_ms": 100, "bank_ms": 1000}


def _hello_answer(bot: sdk.Bot | None) -> bytes:
    line = protocol.encode(protocol.hello("evolution", "1", 0, 2, {}, CLOCK, history=True))
    stdout = io.BytesIO()
    sdk.run(lambda view, decision: 0, stdin=io.BytesIO(line), stdout=stdout, bot=bot)
    return stdout.getvalue()


def test_it_asks_for_its_history_only_when_act_can_read_it() -> None:
    """Only act given a Bot (run(act, bot=bot)) can read Bot.history; a bot without one is not sent events and
    contexts it would never read (docs/bots.md, "Search bots")."""
    assert _hello_answer(None) == b'{"type":"hello","views":"patch","reuse":true}\n'
    assert _hello_answer(sdk.Bot()) == b'{"type":"hello","views":"patch","reuse":true,"history":true}\n'
