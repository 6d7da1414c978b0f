"""The limits of one seat's sandbox, and which sandbox (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

Everything the sandbox would read from the project's settings comes in here: the worker builds a SandboxConfig from
them (workers/sandbox_settings.py), so that this package needs no Django.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, field

from tournaments.uploads import UploadLimits
from workers.sandbox.cgroups import Limits
from workers.sandbox.seat_host import CgroupMode

SANDBOX_KINDS = ("bwrap", "none")
MiB = 1 << 20


@dataclass(frozen=True)
class SandboxConfig:
    """Limits of one seat's sandbox. The defaults suit a ladder match; tournaments may tighten them."""

    cpu_seconds: int = 120  # RLIMIT_CPU per process: a backstop, the clock kills a slow bot long before
    memory_bytes: int = 512 * MiB  # RLIMIT_AS per process
    max_processes: int = 16  # RLIMIT_NPROC: tasks (processes and threads) of the seat's uid
    max_open_files: int = 64  # RLIMIT_NOFILE
    max_file_bytes: int = 16 * MiB  # RLIMIT_FSIZE: the largest file a bot may write
    tmp_bytes: int = 64 * MiB  # size of the private tmpfs at /tmp
    shm_bytes: int = 1 * MiB  # size of the private tmpfs at /dev/shm (POSIX shared memory, multiprocessing)
    stderr_bytes: int = 64 * 1024  # the seat's log keeps this much: its first and its last half
    startup_ms: int = 2000  # extra allowance on the first decision for starting the interpreter; never charged
    finish_ms: int = 200  # how long a bot may take to exit on its own after `result`
    uid_base: int = 20000  # when the worker runs as root, each live seat gets its own uid in
    uid_count: int = 1000  # [uid_base, uid_base + uid_count)
    lock_dir: str = ""  # where the uid leases are held ("" picks /run/ludus-sandbox or the temp dir)
    python: str | None = None  # the interpreter (the worker passes LUDUS_SANDBOX_PYTHON; else /usr/bin/python3)
    # The seat's control group: all its processes together.
    # Anonymous, shared, tmpfs and kernel memory; over it the seat is killed. Above one process's address space plus
    # /tmp, so that a single process that allocates too much gets a MemoryError (a traceback for its author) first.
    group_memory_bytes: int = 640 * MiB
    group_processes: int = 32  # pids.max: processes and threads (bwrap's two included)
    cpu_cores: float = 1.0  # CPU quota while the seat computes
    cgroups: CgroupMode = "required"  # "optional": use them where the host has them; "off": never (benchmarks)
    seccomp: bool = True
    upload_limits: UploadLimits = field(default_factory=UploadLimits)  # what a bot's files may be (unpacking.py)

    def rlimits(self) -> list[tuple[int, int]]:
        return [
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_NPROC, self.max_processes),
            (resource.RLIMIT_NOFILE, self.max_open_files),
            (resource.RLIMIT_FSIZE, self.max_file_bytes),
            (resource.RLIMIT_CORE, 0),
        ]

    def group_limits(self) -> Limits:
        return Limits(self.group_memory_bytes, self.group_processes, self.cpu_cores)
