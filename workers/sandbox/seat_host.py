"""What one sandboxed seat holds on the host: its temp dir, uid lease, control group, process and log thread.

`SeatHost.close()` gives all of it back and is safe to call twice. `cgroup_host(mode)` finds this worker's control
group layout once per process; `prepare_worker()` is the sweep of leftovers at worker start.
"""

from __future__ import annotations

import functools
import logging
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from workers.sandbox.bwrap import (
    SandboxUnavailable,
    UidLease,
    children_of,
    kill_pid,
    kill_uid,
    killpg,
    reap,
    sweep_once,
)
from workers.sandbox.cgroups import CgroupsUnavailable, Host, Limits, SeatGroup, find_host
from workers.sandbox.leases import make_lock_dir

logger = logging.getLogger(__name__)

CgroupMode = Literal["required", "optional", "off"]
CGROUP_MODES: tuple[CgroupMode, ...] = ("required", "optional", "off")


@functools.lru_cache(maxsize=1)
def _found_host() -> Host | CgroupsUnavailable:
    try:
        return find_host()
    except CgroupsUnavailable as exc:
        return exc


def cgroup_host(mode: CgroupMode) -> Host | None:
    """The groups layout to use: None when off or (optional and) unavailable. Raises SandboxUnavailable when the
    groups are required and this host cannot make them: the message says why and how to delegate."""
    if mode == "off":
        return None
    found = _found_host()
    if isinstance(found, Host):
        return found
    if mode == "required":
        raise SandboxUnavailable(str(found))
    return None


def prepare_worker(uid_base: int, uid_count: int, lock_dir: str = "") -> str:
    """At worker start: sweep what killed workers left (processes, seat dirs, groups); say what seats will get."""
    host = cgroup_host("optional")
    locks = make_lock_dir(lock_dir)
    sweep_once(range(uid_base, uid_base + uid_count), locks, host)
    found = _found_host()
    status = (f"sandbox: one control group per seat (cgroup v{found.version})" if isinstance(found, Host)
              else f"sandbox: {found}")
    logger.info(status)
    return status


@dataclass
class SeatHost:
    """Everything a seat holds on the host; `close` gives it all back and is safe to call twice."""

    seat_dir: Path
    lease: UidLease | None = None
    group: SeatGroup | None = None
    proc: subprocess.Popen[bytes] | None = None
    stderr_thread: threading.Thread | None = None
    closed: bool = False

    def make_group(self, host: Host, limits: Limits) -> SeatGroup:
        assert self.lease is not None, "a seat's group is named after its uid lease"
        self.group = SeatGroup(host, f"seat-{self.lease.uid}", limits)
        return self.group

    def kill(self) -> None:
        """Kill the sandbox: the bot (pid 1 of its namespace: the kernel kills the rest) or, with a group, all of the
        group but bwrap's monitor; then the monitor, once it has reaped the bot (or after a second)."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            if self.group is not None:
                self.group.kill(spare=proc.pid)
            _await_monitor(proc, killed_bot=self.group is not None or _kill_bots(proc))
        if self.group is not None:
            self.group.kill()
        elif self.lease is not None:
            kill_uid(self.lease.uid)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.proc is not None:
            self.kill()
        if self.stderr_thread is not None:
            self.stderr_thread.join(timeout=2.0)
        if self.proc is not None:
            reap(self.proc)
        shutil.rmtree(self.seat_dir, ignore_errors=True)
        if self.group is not None:
            self.group.remove()
        if self.lease is not None:
            self.lease.release()


def _kill_bots(proc: subprocess.Popen[bytes]) -> bool:
    """Without a group: kill bwrap's child, the bot (none yet while bwrap sets up). True if there was one."""
    bots = children_of(proc.pid)
    for child in bots:
        kill_pid(child)
    return bool(bots)


def _await_monitor(proc: subprocess.Popen[bytes], killed_bot: bool) -> None:
    try:
        proc.wait(timeout=1.0 if killed_bot else 0.05)
    except subprocess.TimeoutExpired:
        killpg(proc.pid)
        kill_pid(proc.pid)
        proc.wait()
