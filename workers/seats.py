"""Who plays a seat: the interface the match loop talks to, and the trusted in-process player.

Sandboxed players for uploaded bots implement the same interface in workers/sandbox.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from engine.bots import make_bot
from engine.core import Decision


@dataclass(frozen=True)
class Clock:
    """Per-decision soft limit plus a personal time bank, in milliseconds (ARCHITECTURE §4)."""

    move_ms: int = 1000
    bank_ms: int = 10000

    def to_dict(self) -> dict[str, int]:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms}


@dataclass(frozen=True)
class Reply:
    """A seat's answer to one decision. fault is None, or a short code such as 'bad_json' or 'timeout'."""

    choice: int
    ms: int
    fault: str | None = None
    detail: str = ""


class SeatPlayer(Protocol):
    """One seat's player for the length of a match."""

    def start(self, hello: dict[str, Any]) -> None:
        """Send the hello message; may raise SeatDied."""

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        """Ask for a choice. A bad answer comes back as a Reply with a fault; a dead process raises SeatDied."""

    def finish(self, outcome: dict[str, Any]) -> None:
        """Send the result message, then stop the player."""

    def log(self) -> str:
        """The seat's captured stderr, capped."""

    @property
    def needs_view(self) -> bool: ...


class SeatDied(Exception):
    """The seat's process is gone; the seat forfeits."""


class InProcessSeat:
    """A trusted built-in bot, called directly for speed."""

    def __init__(self, bot_name: str, game: str, seed: int) -> None:
        self.bot = make_bot(bot_name, game, seed)

    @property
    def needs_view(self) -> bool:
        return self.bot.needs_view

    def start(self, hello: dict[str, Any]) -> None:
        pass

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        t0 = time.perf_counter()
        choice = self.bot.act(view, decision)
        return Reply(choice=choice, ms=int((time.perf_counter() - t0) * 1000))

    def finish(self, outcome: dict[str, Any]) -> None:
        pass

    def log(self) -> str:
        return ""
