"""The reading as a seat's wait ends (workers/sandbox/freezer.py, Freezer._end_wait), against a group whose CPU counter
the test sets: skipped after a wait too short to hold what a reading would charge or catch, taken after a longer one."""

from __future__ import annotations

import time
from types import SimpleNamespace

from workers.sandbox.freezer import Freezer
from workers.sandbox.seat_log import StderrLog
from workers.seats import waiting


class Group:
    """A seat's control group as the freezer uses it, its CPU counter set by the test and its readings counted."""

    removed = False

    def __init__(self) -> None:
        self.ns, self.reads, self.frozen = 0, 0, False

    def cpu_ns(self) -> int:
        self.reads += 1
        return self.ns

    def oom_kills(self) -> int:
        return 0

    def freeze(self) -> None:
        self.frozen = True

    def thaw(self) -> None:
        self.frozen = False


class Seat(Freezer):
    def __init__(self, group: Group) -> None:
        super().__init__()
        self._res = SimpleNamespace(group=group)  # type: ignore[assignment]
        self._log = StderrLog(4096)
        self._dead = None
        self._cpus = 1


def _replied_and_paused(group: Group, read_at: float) -> Seat:
    """A seat whose reply to decision 1 was read at read_at (its counter read then), and which then waits, watched."""
    seat = Seat(group)
    seat._cpu_ms(read_at)
    seat._replied = 1
    seat.pause()
    assert seat in waiting() and group.reads == 1
    return seat


def test_a_seat_whose_wait_was_too_short_to_use_a_millisecond_is_not_read_again() -> None:
    group = Group()
    seat = _replied_and_paused(group, time.monotonic() + 1)  # read as it is asked again (a second's slack for the host)
    assert seat._end_wait() == 0
    assert group.reads == 1 and seat not in waiting() and not seat._strict


def test_a_seat_that_used_cpu_through_a_longer_wait_is_read_charged_and_caught() -> None:
    group = Group()
    seat = _replied_and_paused(group, time.monotonic() - 0.010)  # 10 ms ago, on one CPU: up to 10 ms of CPU
    group.ns += 5_000_000
    assert seat._end_wait() == 5  # charged to its move, and caught computing off its turn
    assert group.reads == 2 and seat not in waiting() and seat._strict and group.frozen
    assert "used 5 ms of CPU after its reply to decision 1" in seat.caught


def test_the_bound_counts_every_cpu_the_seat_may_run_on() -> None:
    """A wait of 0.3 ms on one CPU holds at most 0.3 ms of CPU; on four, 1.2 ms: read."""
    group = Group()
    seat = _replied_and_paused(group, time.monotonic() - 0.0003)
    seat._cpus = 4
    group.ns += 1_100_000
    assert seat._end_wait() == 1 and group.reads == 2 and seat._strict
