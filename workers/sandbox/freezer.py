"""The watcher and the freezer (docs/bots.md, "The freezer"): no seat computes on another's clock.

A seat that replied waits unfrozen, asleep on its stdin, and is looked at before every decision of another seat
(workers.seats.check_waiting) and every WATCH_MS of another's move (Freezer._watch_until); one whose control group
used CPU since its reply is caught computing off its turn, and is frozen whenever it waits from then on. A seat that
has not replied yet (booting) is frozen as well.

`Freezer` is the part of SandboxedSeat (seat.py) that does this: it reads the seat's group (`_res.group`), notes in
its log (`_log`) and, when the group's processes ran out of memory, has the seat die (`_died`).
"""

from __future__ import annotations

import math
import os
import select
import time
import weakref
from typing import TYPE_CHECKING

from workers.seats import SeatDied, Waiter, check_waiting, waiting

if TYPE_CHECKING:
    from workers.sandbox.seat_host import SeatHost
    from workers.sandbox.seat_log import StderrLog

# A seat that waits unfrozen and whose group used more CPU than this since its wait began computes off its turn. An
# honest bot, asleep on its stdin, uses none; see docs/bots.md, "The freezer".
OFF_TURN_NS = 1_000_000
# A wait shorter than this, times the CPUs a seat may run on, holds less CPU than a reading at its end would charge (in
# whole milliseconds) or catch (over OFF_TURN_NS): the counter is not read then (Freezer._waited_briefly).
BRIEF_WAIT_S = min(OFF_TURN_NS, 1_000_000) / 1e9
# While the worker waits for one seat's reply (or to write its decide line), the seats that wait unfrozen are looked at
# this often (_watch_until): a seat computing off its turn takes about this much of another's long move (plus
# OFF_TURN_NS and the counter's lag) before it is frozen. Over two ticks (4 ms at 250 Hz), so that a look sees a
# spinning seat's counter move. A wake-up costs the worker 50 to 80 us of CPU on the 2-core VM (a timed-out poll, and a
# counter read per waiting seat): under 1 % of a long move at 10 ms, against 3 % at 1 ms. A reply within 10 ms (nearly
# all of them) costs nothing more: the same one poll as before.
WATCH_MS = 10
# At most this much of the time the looks take in one decide is the worker's (the seat's deadline moves on by it, its ms
# leaves it out); the rest is the deciding seat's. Ordinary looks take microseconds (a counter read per waiting seat, 2
# to 5 us; freezing a caught one, a freezer write), a look delayed on a busy host some milliseconds: 50 ms covers them
# many times over, so an honest seat keeps the credit of every ordinary look. A slow look is rare and can be made on
# purpose: a waiting accomplice caught and found killed for its memory takes up to 1.1 s to reap (_death_cause,
# seat_host._await_monitor), which, uncapped, it lent to the deciding seat, once per accomplice. Capped, the gift is 50
# ms a decide whatever the accomplices do; the cost, when a waiting seat is really killed during an honest seat's move,
# is the rest of that one look taken from the honest seat's bank.
LOOKS_CREDIT_S = 0.050


class Freezer:
    """A seat's lazy freezing, and the looks at the other waiting seats while it decides."""

    caught = ""  # what the freezer first caught it at, computing off its turn ("" while it never was)
    _res: SeatHost
    _log: StderrLog
    _dead: str | None

    def __init__(self) -> None:
        self._cpu_ns = 0  # the group's CPU time at the end of the seat's last move
        self._frozen = False
        self._replied: int | None = None  # the seq of its last reply (None: it has not replied since it booted)
        self._reply_ns = 0  # the group's CPU ns read as its last reply came in (_cpu_ms): where its next wait begins
        self._reply_at = 0.0  # the monotonic time just before that reading
        self._cpus = os.cpu_count() or 1  # how many CPUs its processes may run on at once (seat.py narrows it)
        self._strict = False  # it computed off its turn once: frozen whenever it waits, from then on
        self._watched: weakref.WeakSet[Waiter] | None = None  # the waiting() set it is in while it waits unfrozen
        self._next_look = 0.0  # when the seats that wait unfrozen are next looked at during this seat's move
        self._looks_s = 0.0  # the time those looks took during this seat's move: the worker's (up to LOOKS_CREDIT_S)

    def _start_looks(self, now: float) -> None:
        """A decide begins: the next look is WATCH_MS away, and no look has taken time yet."""
        self._next_look, self._looks_s = now + WATCH_MS / 1000, 0.0

    def _looks_credit(self) -> float:
        """The looks' time in this decide that is the worker's, not the deciding seat's."""
        return min(self._looks_s, LOOKS_CREDIT_S)

    def _died(self, what: str) -> SeatDied:
        raise NotImplementedError  # the seat's (seat.py)

    def pause(self) -> None:
        """Another seat holds the decision now (workers.seats.hand_turn). A seat that replied waits unfrozen, asleep on
        its stdin, and is checked at decisions (check_waiting); one that has not replied yet (booting), or that
        computed off its turn, is frozen. A seat whose processes went over the memory limit is killed here (v1 has
        no oom.group: the kernel killed one process only); one that waits, and does not compute, allocates nothing."""
        group = self._res.group
        if group is None or group.removed or self._frozen or self._dead is not None or self._watched is not None:
            return
        if self._strict or self._replied is None:
            self._freeze()
            return
        self._watched = waiting()
        self._watched.add(self)
        if group.oom_kills():
            self._died("")

    def check_waiting(self) -> None:
        """At a decision of another seat (workers.seats.check_waiting: at most every CHECK_S)."""
        self._check_cpu()

    def _end_wait(self) -> int:
        """Its turn comes: the CPU milliseconds the seat's group used since its last reply, while it waited, watched
        or frozen (a frozen task inside a kernel call runs on until the call returns); 0 before its first reply of a
        match. A seat that waited unfrozen is checked with that same reading (_check_cpu), and waits no more."""
        group = self._res.group
        if group is None or group.removed or self._replied is None:
            if self._watched is not None:
                self._check_cpu()
                self._stop_waiting()
            return 0
        if self._waited_briefly():  # a reading could find under a millisecond: nothing to charge, nor to catch
            self._stop_waiting()
            return 0
        used = group.cpu_ns() - self._reply_ns
        if self._watched is not None:  # what it used since the wait began was off its turn
            if self._dead is None:
                self._check_used(used)
            self._stop_waiting()
        return max(0, used) // 1_000_000

    def _waited_briefly(self) -> bool:
        """Whether less wall time passed since the reading at the seat's last reply than can hold a whole millisecond
        of CPU on all the CPUs its processes may run on. Then its counter is not read again at its decide (a system
        call on most decisions: one seat's consecutive decisions, and the hand-offs of a quick round): the reading
        could only find under a millisecond, which _end_wait charges as 0 ms (whole milliseconds) and _check_used
        lets pass (over OFF_TURN_NS is caught). What it used meanwhile still counts, in its next move's cpu_ms
        (_cpu_ms reads on from its last reading). No bot gains: unread, a wait holds less CPU than a reading would
        charge or catch; a longer one (another seat's long move, a slow step, a worker held up) is read as before."""
        return (time.monotonic() - self._reply_at) * self._cpus < BRIEF_WAIT_S

    def _check_cpu(self) -> None:
        """Lazy freezing: a waiting seat whose group used more than OFF_TURN_NS of CPU since its wait began computes
        off its turn (_check_used)."""
        group = self._res.group
        if group is None or group.removed or self._dead is not None or self._watched is None:
            self._stop_waiting()
            return
        self._check_used(group.cpu_ns() - self._reply_ns)  # its wait began at its reply

    def _check_used(self, used: int) -> None:
        """A waiting seat that used more than OFF_TURN_NS since its reply is frozen at once and at every hand-off for
        the rest of its process; its log says so, and what it used is charged to its next move's cpu_ms."""
        if used > OFF_TURN_NS:
            self._strict = True
            self._freeze()
            what = (f"used {used // 1_000_000} ms of CPU after its reply to decision {self._replied}, while another "
                    "seat held the decision")
            self.caught = self.caught or what
            self._log.note(f"{what}: frozen whenever it waits, from now on")

    def _stop_waiting(self) -> None:
        if self._watched is not None:
            self._watched.discard(self)
            self._watched = None

    def _freeze(self) -> None:
        group = self._res.group
        if group is None or group.removed or self._frozen:
            return
        self._stop_waiting()
        group.freeze()
        self._frozen = True
        if self._dead is None and group.oom_kills():
            self._died("")

    def _resume(self) -> None:
        group = self._res.group
        if self._frozen and group is not None and not group.removed:
            group.thaw()
        self._frozen = False

    def _cpu_ms(self, now: float) -> int | None:
        """The CPU milliseconds all the seat's processes used since the last reading: its own time, and what it
        used off its turn before it was caught (check_waiting). now: the monotonic time, taken just before."""
        group = self._res.group
        if group is None or group.removed:
            return None
        self._reply_at = now
        used = self._reply_ns = group.cpu_ns()
        ms = (used - self._cpu_ns) // 1_000_000
        self._cpu_ns += ms * 1_000_000  # the part of a millisecond left counts toward the next move: sums are exact
        return int(ms)

    def _watch_until(self, poller: select.poll, deadline: float) -> list[tuple[int, int]]:
        """Poll until an event (returned) or the deadline (an empty list), looking at the waiting seats meanwhile:
        every wait of a decide goes through here, the write of its line (_send) and the wait for its reply.

        While other seats of the match wait unfrozen, they are looked at every WATCH_MS of this seat's move, not only
        at the next decision. The looks go by time (_next_look, kept across the waits of one decide), not by quiet
        polls: a deciding seat that writes a byte now and then wakes the worker and ends a wait each time, and must
        not keep the look from coming due while an accomplice computes off its turn; nor may one that reads its decide
        line late, holding the worker in the write.

        The time the looks take (freezing a caught seat, or killing one that ran out of memory and waiting for bwrap)
        is the worker's, up to LOOKS_CREDIT_S a decide: the seat's deadline moves on by it, and its move's ms leaves
        it out (decide). A waiting accomplice that makes its own look slow lends the deciding seat that much at most."""
        while True:
            now = time.monotonic()
            watched = waiting()  # seats of this match that wait unfrozen (not this one: its wait ended at its decide)
            if watched and now >= self._next_look:
                check_waiting()  # a seat that computes meanwhile is frozen (and leaves watched)
                self._looks_s += time.monotonic() - now
                now = time.monotonic()
                self._next_look = now + WATCH_MS / 1000
            end = deadline + self._looks_credit()
            # Nobody to look at: one poll to the deadline, as without the watch; else until the look or the deadline.
            # Past the deadline still one poll (of 0 ms): a reply that came while the worker looked or woke late counts.
            until = min(end, self._next_look) if watched else end
            if events := poller.poll(max(0, math.ceil((until - now) * 1000))):
                return events
            if time.monotonic() >= end:
                return []
