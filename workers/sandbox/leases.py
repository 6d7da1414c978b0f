"""Leases among the processes of one machine (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox): a seat's
uid (bwrap.py UidLease) and a match's CPU (pinning.py), each an exclusive flock on `<kind>-<number>.lock` in the
worker lock dir. The kernel drops a flock with the last fd of its file, so a lease never outlives its process.

The project's other leases stay distinct, each for a reason:
- the match lease (tournaments/services.py, a row's lease_until): it must outlive a worker, so that the reaper on
  any machine re-queues a match whose worker vanished; a flock dies with its process and is seen on one host only;
- the validation claim (workers/validation.py, a version's claimed_at): the same, for a version's smoke match;
- the one-beat lease (workers/beat.py BeatLease): between beats on different machines, so it lives on the broker
  (a Redis lock with a time-to-live), taken over when its holder is cut off, which a flock cannot see.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
import weakref
from collections.abc import Iterable
from pathlib import Path

RUN_LOCK_DIR = "/run/ludus-sandbox"  # one per host; docker-compose.yml shares it between the worker's replicas


def default_lock_dir() -> str:
    return RUN_LOCK_DIR if os.access("/run", os.W_OK) else os.path.join(tempfile.gettempdir(), "ludus-uids")


def make_lock_dir(lock_dir: str = "") -> Path:
    """The lock dir (lock_dir, or the default), made if need be, and mode 0700 even when it was there before: a
    Kubernetes hostPath of type DirectoryOrCreate is made 0755, and mkdir(exist_ok=True) leaves an existing dir's
    mode alone. Every place that makes it goes through here (uid leases, CPU leases, the seccomp filter's file)."""
    locks = Path(lock_dir or default_lock_dir())
    locks.mkdir(mode=0o700, parents=True, exist_ok=True)
    if stat.S_IMODE(locks.stat().st_mode) != 0o700:
        locks.chmod(0o700)
    return locks


class FileLock:
    """An exclusive flock on one lock file (`try_lock`), held until `release()`, the object's collection or the
    process's end: the kernel drops a flock with the last fd of its file, so a lock never outlives its process, and
    one dropped by an exception (a signal's, say) is given back without waiting for a long-lived process to end."""

    def __init__(self, fd: int) -> None:
        self._close = weakref.finalize(self, os.close, fd)
        # Not at interpreter exit: finalizers run newest first there, so a lock taken after its seat was made would
        # be dropped before the seat's finalizer kills its processes, and another worker could lease the uid while
        # they still run. The kernel drops the flock when the process ends, after everything else.
        self._close.atexit = False

    def release(self) -> None:
        self._close()  # a finalizer runs once: releasing twice is harmless


def try_lock(path: Path) -> FileLock | None:
    """The lock on path (the file created if need be), or None at once if another open file holds it."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    lock = FileLock(fd)  # from here on, the fd is closed with the lock, whatever is raised
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.release()
        return None
    return lock


class Lease:
    """One numbered thing of a kind (a uid, a CPU) held by this process: the flock on `<kind>-<number>.lock`, until
    `release()`, the lease's collection or the process's end."""

    def __init__(self, number: int, lock: FileLock) -> None:
        self.number, self._lock = number, lock

    def release(self) -> None:
        self._lock.release()


def take_lease(locks: Path, kind: str, numbers: Iterable[int]) -> Lease | None:
    """A lease on the first of numbers (in their order) that no other open file holds; None when all are held."""
    for number in numbers:
        if (lock := try_lock(locks / f"{kind}-{number}.lock")) is not None:
            return Lease(number, lock)
    return None
