"""One match, one CPU: the runner's thread and every process of the match's seats share a CPU (issue 17).

A sandboxed match is a strict pipeline: the runner sends a decide and waits, the bot computes and replies; only one
of them runs at a time. Between two CPUs every hand-over is a cross-CPU wake-up, an inter-processor interrupt, which
under a hypervisor is a VM exit: a pipe round trip took 42-57 us across CPUs and 7-8 us on one CPU on a Firecracker
VM (docs/scaling.md). So while it plays a match with a sandboxed seat, the runner's thread is pinned to one CPU; the
seats it spawns inherit the affinity (it passes through vfork, exec, setpriv and bwrap, and the seats' control
groups have no cpuset controller, whose attach would reset it), and the match's processes hand over on one CPU.
Built-in bots alone hand nothing over, and a pinned thread cannot leave a CPU that other work keeps busy: such a
match, and verification, stay unpinned.

Which CPU: a lease per CPU, a non-blocking flock on `cpu-N.lock` in the worker lock dir (beside the seats' uid
leases, workers/bwrap.py), so matches played at once on one machine (Celery prefork children, the embedded pool,
several workers) take different CPUs instead of piling onto one while another idles. A process prefers the CPU of
its last match: its warm seats (workers/sandbox.py) were spawned there and keep that affinity. When every allowed
CPU is leased, when the thread may use one CPU only, or when the platform cannot pin, the match runs unpinned. The
kernel drops the flock of a killed worker, so a lease never outlives its process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
from collections.abc import Iterator

from workers.bwrap import FileLock, default_lock_dir, make_lock_dir, try_lock

logger = logging.getLogger(__name__)

_last_cpu: int | None = None  # the CPU this process's last pinned match used


class CpuLease:
    """One CPU held for one match: an exclusive flock on its lock file, until `release()` (or the lease's collection,
    workers/bwrap.FileLock: a pool child lives for many matches)."""

    def __init__(self, cpu: int, lock: FileLock) -> None:
        self.cpu, self._lock = cpu, lock

    def release(self) -> None:
        self._lock.release()


def can_pin() -> bool:
    """Whether this platform lets a thread choose its CPUs (Linux does; macOS and Windows do not)."""
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def take_cpu(lock_dir: str = "") -> CpuLease | None:
    """A lease on a free CPU among the calling thread's allowed ones, the last one this process used first; None when
    none is free, when only one is allowed (nothing to choose: pinning would only forbid the kernel to help), or
    when the platform cannot pin."""
    if not can_pin():
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None
    try:
        locks = make_lock_dir(lock_dir or default_lock_dir())  # this module's name: tests point it elsewhere
        for cpu in _in_order_of_preference(allowed):
            if (lock := try_lock(locks / f"cpu-{cpu}.lock")) is not None:
                return CpuLease(cpu, lock)
    except OSError:  # an unwritable lock dir: the match runs as it would have without pinning
        logger.warning("cannot lease a CPU in %s; the match runs unpinned", lock_dir or default_lock_dir(),
                       exc_info=True)
    return None


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
def one_cpu(enabled: bool = True, lock_dir: str = "") -> Iterator[int | None]:
    """Pin the calling thread to one leased CPU for the block, and yield that CPU (None: not pinned); on leaving,
    exceptions included, restore the thread's previous affinity and drop the lease.

    Processes spawned inside the block inherit the pin; threads started inside it do too, and keep it. The pin is
    taken inside the `try`, and the lease is dropped even if restoring raises: Celery's soft time limit raises
    SoftTimeLimitExceeded from a signal handler, at any point of the block."""
    lease = take_cpu(lock_dir) if enabled else None
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


def _pin(lease: CpuLease) -> int | None:
    """Pin the calling thread to the lease's CPU and return it (None: not pinned, the lease dropped)."""
    global _last_cpu
    try:
        os.sched_setaffinity(0, {lease.cpu})
    except OSError:  # the CPU went offline or out of the worker's cpuset meanwhile
        lease.release()
        logger.warning("cannot pin to CPU %s; the match runs unpinned", lease.cpu, exc_info=True)
        return None
    _last_cpu = lease.cpu
    return lease.cpu


def _restore(previous: set[int]) -> None:
    """Give the calling thread back the affinity it had before the match (a no-op if the pin never happened)."""
    try:
        os.sched_setaffinity(0, previous)
    except OSError:  # a CPU of before went offline: the match's result stands; the thread stays pinned
        logger.warning("cannot restore the affinity %s after a match", sorted(previous), exc_info=True)
