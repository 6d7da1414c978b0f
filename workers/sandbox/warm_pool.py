"""Warm seats: finished sandboxes kept, frozen, for their bot version's next match (docs/bots.md, "Warm seats").

At most `warm_seats()` per process, parked or reserved. A full pool retires its longest-parked seat to make room
for a new one; a seat parked longer than `idle_seconds()` is retired by a sweeper thread, so a worker that no longer
gets its version's matches does not hold a frozen sandbox for its life. `close()` retires them all and parks no
more: the worker's shutdown signals call it (config/celery.py).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Protocol


class Parkable(Protocol):
    """What the pool needs of a seat (workers.sandbox.SandboxedSeat)."""

    pool_key: tuple[Any, ...] | None

    @property
    def alive(self) -> bool: ...

    def retire(self) -> None: ...


def warm_seats() -> int:
    """LUDUS_WARM_SEATS: how many finished seats a worker process keeps for their versions' next matches (0: none,
    the default). Raises ValueError for anything but a whole number from 0."""
    raw = os.environ.get("LUDUS_WARM_SEATS", "0")
    if not raw.strip().isdigit():
        raise ValueError(f"LUDUS_WARM_SEATS must be a whole number of seats, 0 or more, got {raw!r}")
    return int(raw)


def idle_seconds() -> float:
    """LUDUS_WARM_SEATS_IDLE_SECONDS: how long a seat may wait parked before it is retired (default 300). Raises
    ValueError for anything but a number above 0."""
    raw = os.environ.get("LUDUS_WARM_SEATS_IDLE_SECONDS", "300")
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise ValueError(f"LUDUS_WARM_SEATS_IDLE_SECONDS must be a number of seconds above 0, got {raw!r}")
    return value


class SeatPool:
    """Parked seats by key (bot version, sha256, sandbox, config, CPU affinity: workers.sandbox.make_sandboxed_seat),
    oldest first, with the time each was parked."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parked: list[tuple[float, Parkable]] = []
        self._reserved = 0  # seats that will be parked once frozen (reserve, then put or release)
        self._closed = False
        self._sweeper: threading.Thread | None = None
        self._changed = threading.Condition(self._lock)  # the sweeper waits on it for the oldest seat's time

    def reserve(self) -> bool:
        """Room for one more seat, held until put or release: retires the longest-parked seat when the pool is
        full. False when warm seats are off, every place is reserved, or the pool is closed."""
        limit = warm_seats()
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

    def put(self, seat: Parkable) -> None:
        """Park a seat reserved for; a closed pool retires it instead."""
        with self._lock:
            self._reserved -= 1
            if not self._closed:
                self._parked.append((time.monotonic(), seat))
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
        """Retire every seat parked longer than idle_seconds()."""
        cutoff = time.monotonic() - idle_seconds()
        with self._lock:
            idle = [seat for parked_at, seat in self._parked if parked_at <= cutoff]
            self._parked = [(parked_at, seat) for parked_at, seat in self._parked if parked_at > cutoff]
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
                due = self._parked[0][0] + idle_seconds()  # the oldest seat's; a put or close wakes it early
                if self._changed.wait(max(0.0, due - time.monotonic())):
                    continue
            self.retire_idle()


POOL = SeatPool()
