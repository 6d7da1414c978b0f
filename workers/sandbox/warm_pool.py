"""Warm seats: finished sandboxes kept, frozen, for their bot version's next match (docs/bots.md, "Warm seats").

At most `WarmSeats.count` per process, parked or reserved. A full pool retires its longest-parked seat to make room
for a new one; a seat parked longer than `WarmSeats.idle_seconds` is retired by a sweeper thread, so a worker that no
longer gets its version's matches does not hold a frozen sandbox for its life. The worker reads both from its settings
(LUDUS_WARM_SEATS, LUDUS_WARM_SEATS_IDLE_SECONDS) and passes them in (workers/sandbox_settings.py). `close()`
retires them all and parks no more: the worker's shutdown signals call it (config/celery.py).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol


class Parkable(Protocol):
    """What the pool needs of a seat (workers.sandbox.SandboxedSeat)."""

    pool_key: tuple[Any, ...] | None

    @property
    def alive(self) -> bool: ...

    def retire(self) -> None: ...


@dataclass(frozen=True)
class WarmSeats:
    """How many finished seats a worker process keeps for their versions' next matches (0: none), and how long a seat
    may wait parked before it is retired."""

    count: int = 0
    idle_seconds: float = 300.0

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"warm seats must be 0 or more, got {self.count}")
        if not 0 < self.idle_seconds < float("inf"):
            raise ValueError(f"a warm seat's idle seconds must be a number above 0, got {self.idle_seconds}")


NO_WARM_SEATS = WarmSeats()


class SeatPool:
    """Parked seats by key (bot version, sha256, sandbox, config, CPU affinity: workers.sandbox.make_sandboxed_seat),
    oldest first, with the time each is to be retired if no match takes it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parked: list[tuple[float, Parkable]] = []  # (retire at, seat)
        self._reserved = 0  # seats that will be parked once frozen (reserve, then put or release)
        self._closed = False
        self._sweeper: threading.Thread | None = None
        self._changed = threading.Condition(self._lock)  # the sweeper waits on it for the oldest seat's time

    def reserve(self, limit: int) -> bool:
        """Room for one more seat in a pool of limit seats (WarmSeats.count), held until put or release: retires the
        longest-parked seat when the pool is full. False when warm seats are off, every place is reserved, or the
        pool is closed."""
        retired = None
        with self._lock:
            if self._closed or limit == 0:
                return False
            if self._reserved + len(self._parked) >= limit:
                if not self._parked:
                    return False
                retired = self._parked.pop(0)[1]
            self._reserved += 1
        if retired is not None:
            retired.retire()
        return True

    def release(self) -> None:
        with self._lock:
            self._reserved -= 1

    def put(self, seat: Parkable, idle_seconds: float) -> None:
        """Park a seat reserved for, until a match takes it or idle_seconds pass; a closed pool retires it instead."""
        with self._lock:
            self._reserved -= 1
            if not self._closed:
                self._parked.append((time.monotonic() + idle_seconds, seat))
                self._start_sweeper()
                self._changed.notify()
                return
        seat.retire()

    def take(self, key: tuple[Any, ...]) -> Parkable | None:
        """The most recently parked seat of this key whose process still runs (dead ones are retired on the way)."""
        while True:
            with self._lock:
                found = [i for i, (_, seat) in enumerate(self._parked) if seat.pool_key == key]
                if not found:
                    return None
                seat = self._parked.pop(found[-1])[1]
            if seat.alive:
                return seat
            seat.retire()

    def retire_idle(self) -> None:
        """Retire every seat parked longer than its idle seconds."""
        now = time.monotonic()
        with self._lock:
            idle = [seat for retire_at, seat in self._parked if retire_at <= now]
            self._parked = [(retire_at, seat) for retire_at, seat in self._parked if retire_at > now]
        for seat in idle:
            seat.retire()

    def clear(self) -> None:
        """Retire every parked seat."""
        with self._lock:
            parked = [seat for _, seat in self._parked]
            self._parked.clear()
        for seat in parked:
            seat.retire()

    def close(self) -> None:
        """Retire every parked seat and park no more (the worker process is stopping)."""
        with self._lock:
            self._closed = True
            self._changed.notify()
        self.clear()

    def _start_sweeper(self) -> None:
        """Under the lock: the thread that retires idle seats, unless it runs (in this process: not after a fork)."""
        if self._sweeper is None or not self._sweeper.is_alive():
            self._sweeper = threading.Thread(target=self._sweep, name="ludus-warm-seats", daemon=True)
            self._sweeper.start()

    def _sweep(self) -> None:
        while True:
            with self._lock:
                if not self._parked or self._closed:
                    self._sweeper = None
                    return
                due = min(retire_at for retire_at, _ in self._parked)  # a put or close wakes it early
                if self._changed.wait(max(0.0, due - time.monotonic())):
                    continue
            self.retire_idle()


POOL = SeatPool()
