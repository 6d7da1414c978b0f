"""Who plays a seat: the interface the match loop talks to, and the trusted in-process player.

Sandboxed players for uploaded bots implement the same interface in workers/sandbox/seat.py.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from engine.bots import make_bot
from engine.core import Decision


@dataclass(frozen=True)
class Clock:
    """Per-decision soft limit plus a personal time bank, in milliseconds
    (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox)."""

    move_ms: int = 1000
    bank_ms: int = 10000

    def to_dict(self) -> dict[str, int]:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms}


@dataclass(slots=True)  # built at every decision: not frozen, whose __init__ goes through object.__setattr__ (3x)
class Reply:
    """A seat's answer to one decision. fault is None, or a short code such as 'bad_json' or 'timeout'.

    ms is the wall time the clock charges; cpu_ms, where the seat has a control group, the CPU time all its
    processes used for this move (recorded in the action log beside ms).
    """

    choice: int
    ms: int
    fault: str | None = None
    detail: str = ""
    cpu_ms: int | None = None


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

    def close(self) -> None:
        """Stop the player now and give back what it holds (a forfeit, or a match that raised); safe to call twice
        and after finish()."""

    @property
    def needs_view(self) -> bool: ...

    @property
    def has_process(self) -> bool:
        """A seat with a process of its own (sandboxed): settled at the start, paused while another seat decides,
        and sent its result before all such seats are stopped together. In-process seats do nothing in those."""

    def settle(self, deadline: float) -> None:
        """Let the started process boot until it has read its hello (or the deadline), then pause it."""

    def pause(self) -> None:
        """Another seat holds the decision now: this one must not compute (frozen, or watched:
        workers/sandbox/seat.py)."""

    def send_result(self, message: dict[str, Any]) -> None:
        """The first half of finish: send the result message without waiting for the seat to stop."""

    def catch_up(self, view: dict[str, Any] | None, decision: Decision, played: int) -> None:
        """Walk the bot through a step of a branch's past, a forced one too: it answers (its answer dropped), then
        is told the option `played`, so that its seeded draws and memory stand where the parent's did. Only
        in-process bots can: a sandboxed bot is not asked."""


class SeatWrapper:
    """A SeatPlayer around another: every member a subclass does not define is the inner player's, so a wrapper
    writes only what it adds (workers/runner.py TimedSeat, workers/validation.py RecordingSeat)."""

    def __init__(self, inner: SeatPlayer) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (a copy or unpickling): not the inner player's
            raise AttributeError(name)
        return getattr(self.inner, name)


class SeatDied(Exception):
    """The seat's process is gone; the seat forfeits. code is the fault recorded: died, or oom (out of memory)."""

    def __init__(self, detail: str = "", code: str = "died") -> None:
        super().__init__(detail)
        self.code = code


class Waiter(Protocol):
    def check_waiting(self) -> None:
        """Called at decisions of another seat, at most every CHECK_S, and every WATCH_MS of a sandboxed seat's move,
        while this one waits unfrozen (workers/sandbox/seat.py)."""


# How often, at most, decisions check the seats that wait unfrozen: a running task's CPU counter moves at the
# scheduler's tick (4 ms at 250 Hz), so checking more often sees little more, and costs a read per seat and decision.
CHECK_S = 0.004

_local = threading.local()


def waiting() -> weakref.WeakSet[Waiter]:
    """The seats of the match this thread plays that wait for their turn without being frozen: every decision,
    whichever seat takes it, checks them first (docs/bots.md, "The freezer"). Weak: a dropped seat leaves it."""
    seats: weakref.WeakSet[Waiter] | None = getattr(_local, "seats", None)
    if seats is None:
        seats = _local.seats = weakref.WeakSet()
    return seats


def check_waiting() -> None:
    """Before a decision: each seat that waits unfrozen checks that it does not compute (it freezes itself if so).
    All of them together, at most every CHECK_S: most decisions pay one clock reading here, and no walk of the set."""
    now = time.monotonic()
    if now < getattr(_local, "next_check", 0.0):
        return
    _local.next_check = now + CHECK_S
    seats = waiting()
    if seats:
        for seat in list(seats):
            seat.check_waiting()


def start_seats(players: Sequence[SeatPlayer], hellos: Sequence[dict[str, Any]], boot_ms: int = 2000) -> list[bool]:
    """Start every seat, then let them boot together (each until it read its hello, or boot_ms) before the first
    decision; sandboxed seats are then frozen until their turn. True per seat that started."""
    started = []
    for player, hello in zip(players, hellos, strict=True):
        try:
            player.start(hello)
            started.append(True)
        except SeatDied:
            started.append(False)
    deadline = time.monotonic() + boot_ms / 1000
    for player, ok in zip(players, started, strict=True):
        if ok:
            player.settle(deadline)
    return started


def hand_turn(players: Sequence[SeatPlayer], seat: int) -> None:
    """The decision passes to seat: every other seat that can be paused is (sandboxed seats: watched, or frozen).
    The deciding seat resumes itself when asked; consecutive decisions of one seat pay nothing."""
    for number, player in enumerate(players):
        if number != seat:
            player.pause()


def finish_seats(players: Sequence[SeatPlayer], outcome: dict[str, Any]) -> list[str]:
    """Send every seat its result first, then wait for and stop all of them at once, one thread each (waiting for
    exits, killing, removing files and groups: mostly waiting on the kernel). Their logs."""
    message = {"type": "result", "outcome": outcome}
    for player in players:
        player.send_result(message)
    # In-process seats stop at once, and a warm seat whose bot plays on is only frozen and parked: no threads for
    # them, nor for a single seat that must be waited for.
    if sum(player.has_process and not getattr(player, "is_parking", False) for player in players) < 2:
        return [_finish(player, message) for player in players]
    with ThreadPoolExecutor(max_workers=len(players), thread_name_prefix="ludus-finish") as pool:
        return list(pool.map(_finish, players, [message] * len(players)))


def _finish(player: SeatPlayer, message: dict[str, Any]) -> str:
    try:
        player.finish(message)
    except SeatDied:
        pass
    return player.log()


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
        check_waiting()
        t0 = time.perf_counter()
        choice = self.bot.act(view, decision)
        return Reply(choice=choice, ms=int((time.perf_counter() - t0) * 1000))

    def finish(self, outcome: dict[str, Any]) -> None:
        pass

    def log(self) -> str:
        return ""

    def close(self) -> None:
        pass  # nothing to stop: the bot is an object in this process

    @property
    def has_process(self) -> bool:
        return False

    def settle(self, deadline: float) -> None:
        pass

    def pause(self) -> None:
        pass

    def send_result(self, message: dict[str, Any]) -> None:
        pass

    def catch_up(self, view: dict[str, Any] | None, decision: Decision, played: int) -> None:
        self.bot.act(view, decision)
        self.bot.played(decision, played)
