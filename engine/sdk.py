"""The Ludus bot SDK: write `act(view, decision) -> int`, call `run(act)`.

Inside the sandbox this file is importable as `ludus`::

    import ludus

    def act(view, decision):
        return 0  # the index of the chosen option in decision["options"]

    ludus.run(act)

`run` reads the engine's JSON lines from stdin, calls `act` for every `decide` message, writes
`{"seq": n, "choice": i}` to stdout and flushes. `print` goes to stderr, the seat's log, so stdout carries only the
protocol. Unknown message types are ignored; `result` or the end of stdin ends the loop. If `act` raises, the
exception ends the bot (the seat forfeits) and its traceback lands in the log.

This module is self-contained and uses only the standard library: it is copied into every sandbox on its own.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

__all__ = ["Act", "Bot", "run"]

PROTOCOL_VERSION = 1

Act = Callable[[dict[str, Any], dict[str, Any]], int]


class Bot:
    """What the loop knows about the match: `hello` (game, seat, players, options, clock) and the last `clock`."""

    def __init__(self) -> None:
        self.hello: dict[str, Any] = {}
        self.clock: dict[str, Any] = {}
        self.outcome: dict[str, Any] | None = None

    @property
    def seat(self) -> int:
        return int(self.hello.get("seat", 0))


def _reply_line(seq: Any, choice: int) -> bytes:
    return json.dumps({"seq": seq, "choice": choice}, separators=(",", ":")).encode("utf-8") + b"\n"


def run(
    act: Act,
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    bot: Bot | None = None,
) -> Bot:
    """Answer every decide with act(view, decision) until result or end of input; return what the loop saw."""
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    state = bot if bot is not None else Bot()
    if stdout is None:
        sys.stdout = sys.stderr  # the author's print() goes to the log, never into the protocol
    for line in inp:
        message = json.loads(line)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            state.hello = message
        elif kind == "decide":
            state.clock = message.get("clock", {})
            choice = act(message.get("view", {}), message["decision"])
            out.write(_reply_line(message["seq"], choice))
            out.flush()
        elif kind == "result":
            state.outcome = message.get("outcome")
            break
    return state


if __name__ == "__main__":  # `python sdk.py` plays the first option every time: a smoke test for the pipes
    run(lambda view, decision: 0)
