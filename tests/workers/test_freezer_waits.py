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


def _moved_twice_then_waits(strict: bool, tail_ns: int) -> tuple[Group, Seat]:
    """Reply 1 read 10 ms ago; reply 2 (the seat kept the turn) 0.48 ms later, after 0.45 ms of CPU on its own turn;
    then tail_ns of CPU after reply 2 (a runtime's own threads before a freeze, say), and it waits."""
    group = Group()
    seat = Seat(group)
    seat._strict = strict  # a seat frozen whenever it waits (Java, JavaScript, one caught before)
    read_at = time.monotonic() - 0.010
    seat._cpu_ms(read_at)
    seat._replied = 1
    group.ns += 450_000
    assert seat._cpu_ms(read_at + 0.00048) == 0
    seat._replied = 2
    group.ns += tail_ns
    seat.pause()
    return group, seat


def test_a_moves_own_cpu_is_never_charged_again_to_the_next_move() -> None:
    """What a seat used on its own turn is in that move's ms; what it used after its reply, under a millisecond, adds
    nothing to its next move (a reading that began before its last move would add both)."""
    group, seat = _moved_twice_then_waits(strict=True, tail_ns=600_000)
    assert group.frozen and seat._end_wait() == 0


def test_only_the_cpu_used_after_a_reply_counts_toward_computing_off_its_turn() -> None:
    """0.6 ms after its reply is under the 1 ms that marks computing off its turn, however much its move used."""
    group, seat = _moved_twice_then_waits(strict=False, tail_ns=600_000)
    seat._end_wait()
    assert not seat._strict, seat.caught


def test_a_matchs_cpu_ms_add_up_to_its_whole_milliseconds() -> None:
    """Moves of 0.7 and 0.4 ms: 1 ms in all, charged within the match (a part of a millisecond carried, never left
    for a later match)."""
    group = Group()
    seat = Seat(group)
    start = time.monotonic()
    group.ns += 700_000
    charged = seat._cpu_ms(start)
    group.ns += 400_000
    charged = (charged or 0) + (seat._cpu_ms(start + 0.0002) or 0)
    assert charged == 1
