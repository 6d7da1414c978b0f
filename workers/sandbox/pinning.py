"""One match, one CPU: the runner's thread and every process of the match's seats share a CPU.

A sandboxed match is a strict pipeline: the runner sends a decide and waits, the bot computes and replies; only one
of them runs at a time. Between two CPUs every hand-over is a cross-CPU wake-up, an inter-processor interrupt, which
under a hypervisor is a VM exit: a pipe round trip took 42-57 us across CPUs and 7-8 us on one CPU on a Firecracker
VM (docs/scaling.md). So while it plays a match with a sandboxed seat, the runner's thread is pinned to one CPU; the
seats it spawns inherit the affinity (it passes through vfork, exec, setpriv and bwrap, and the seats' control
groups have no cpuset controller, whose attach would reset it), and the match's processes hand over on one CPU.
Built-in bots alone hand nothing over, and a pinned thread cannot leave a CPU that other work keeps busy: such a
match, and verification, stay unpinned.

Which CPU: a lease per CPU, a non-blocking flock on `cpu-N.lock` in the worker lock dir (beside the seats' uid leases;
workers/sandbox/leases.py), so matches played at once on one machine (Celery prefork children, the embedded pool,
several workers) take different CPUs instead of piling onto one while another idles. A process prefers the CPU of its
last match: its warm seats (workers/sandbox/seat.py) were spawned there and keep that affinity. When every allowed CPU
is leased, the match waits until one is given back (`wait_for_cpu`): played unpinned, its seats would run on the CPUs
other matches leased, a hog's busy processes beside another match's deciding seat (docs/operations.md, "One CPU a
match"). A thread allowed one CPU only leases that one, so that two matches never share it. Only where the platform
cannot pin, or the lock dir cannot be written (logged), does a match run unpinned. The kernel drops the flock of a
killed worker, so a lease never outlives its process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import time
from collections.abc import Callable, Iterator

from workers.sandbox.leases import Lease, default_lock_dir, make_lock_dir, take_lease

logger = logging.getLogger(__name__)

_last_cpu: int | None = None  # the CPU this process's last pinned match used
WAIT_S = 0.02  # how often a match that waits for a CPU looks again: a fiftieth of a second, against matches of seconds


def can_pin() -> bool:
    """Whether this platform lets a thread choose its CPUs (Linux does; macOS and Windows do not)."""
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def take_cpu(lock_dir: str = "") -> Lease | None:
    """A lease on a free CPU among the calling thread's allowed ones, the last one this process used first; None when
    none is free, when the lock dir cannot be written (logged), or when the platform cannot pin."""
    if not can_pin():
        return None
    try:
        return _try_lease(sorted(os.sched_getaffinity(0)), lock_dir or default_lock_dir())
    except OSError:  # an unwritable lock dir: the match runs as it would have without pinning
        logger.warning("cannot lease a CPU in %s; the match runs unpinned", lock_dir or default_lock_dir(),
                       exc_info=True)
    return None


def _try_lease(allowed: list[int], lock_dir: str) -> Lease | None:
    """A lease on the first free CPU of allowed, in order of preference; None when every one is leased. Raises
    OSError when the lock dir cannot be made or written."""
    return take_lease(make_lock_dir(lock_dir), "cpu", _in_order_of_preference(allowed))


def wait_for_cpu(lock_dir: str = "", check: Callable[[], None] | None = None) -> Lease | None:
    """take_cpu, waiting while every allowed CPU is leased (looking every WAIT_S; check, if given, is called as often
    and may raise to give up). None only where take_cpu cannot lease at all: no pinning, or no lock dir."""
    if not can_pin():
        return None
    where = lock_dir or default_lock_dir()  # this module's name: tests point it elsewhere
    logged = False
    while True:
        try:
            lease = _try_lease(sorted(os.sched_getaffinity(0)), where)
        except OSError:
            logger.warning("cannot lease a CPU in %s; the match runs unpinned", where, exc_info=True)
            return None
        if lease is not None:
            return lease
        if not logged:
            logger.info("every CPU is leased to a match; waiting for one")
            logged = True
        if check is not None:
            check()
        _pause()


def _pause() -> None:
    time.sleep(WAIT_S)


def _in_order_of_preference(allowed: list[int]) -> list[int]:
    """The last CPU used, then the others from a random start: workers whose lock dirs differ (one per container)
    then spread at random rather than all beginning with CPU 0."""
    start = random.randrange(len(allowed))
    order = allowed[start:] + allowed[:start]
    if _last_cpu in order:
        order.remove(_last_cpu)
        order.insert(0, _last_cpu)
    return order


@contextlib.contextmanager
def one_cpu(enabled: bool = True, lock_dir: str = "", check: Callable[[], None] | None = None) -> Iterator[int | None]:
    """Pin the calling thread to one leased CPU for the block, waiting for one while all are leased (wait_for_cpu,
    which calls check as it waits), and yield that CPU (None: not pinned); on leaving, exceptions included, restore
    the thread's previous affinity and drop the lease.

    Processes spawned inside the block inherit the pin; threads started inside it do too, and keep it. The pin is
    taken inside the `try`, and the lease is dropped even if restoring raises: Celery's soft time limit raises
    SoftTimeLimitExceeded from a signal handler, at any point of the block."""
    lease = wait_for_cpu(lock_dir, check) if enabled else None
    if lease is None:
        yield None
        return
    previous: set[int] | None = None
    try:
        previous = os.sched_getaffinity(0)
        yield _pin(lease)
    finally:
        try:
            if previous is not None:
                _restore(previous)
        finally:
            lease.release()


def _pin(lease: Lease) -> int | None:
    """Pin the calling thread to the lease's CPU and return it (None: not pinned, the lease dropped)."""
    global _last_cpu
    try:
        os.sched_setaffinity(0, {lease.number})
    except OSError:  # the CPU went offline or out of the worker's cpuset meanwhile
        lease.release()
        logger.warning("cannot pin to CPU %s; the match runs unpinned", lease.number, exc_info=True)
        return None
    _last_cpu = lease.number
    return lease.number


def _restore(previous: set[int]) -> None:
    """Give the calling thread back the affinity it had before the match (a no-op if the pin never happened)."""
    try:
        os.sched_setaffinity(0, previous)
    except OSError:  # a CPU of before went offline: the match's result stands; the thread stays pinned
        logger.warning("cannot restore the affinity %s after a match", sorted(previous), exc_info=True)
