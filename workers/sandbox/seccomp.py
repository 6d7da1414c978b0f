"""The sandbox's seccomp filter, in the spirit of Docker's default profile: the kernel interfaces a bot never needs
and that have been the way out of sandboxes are refused with EPERM (clone3 with ENOSYS, so that the C library falls
back to clone, whose namespace flags can be checked; Docker does the same).

The binding: libseccomp's own Python module, from Debian's `python3-seccomp`, compiles the rules below into a BPF
program once per worker process; bwrap loads it with `--seccomp FD` in the sandbox, after its own set-up and just
before it runs the bot. libseccomp is the maintained compiler of such filters (Docker, systemd and Flatpak use it):
it picks the syscall numbers of the architecture, checks the architecture itself (a syscall made through another
ABI, such as `int 0x80` on x86-64, kills the process) and orders the checks. The module binds Debian's
/usr/bin/python3, which is also the sandbox's interpreter, not the worker's virtualenv, so the worker runs it as a
subprocess and caches the program it prints.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import tempfile
from typing import Any

from workers.sandbox.leases import make_lock_dir

# Refused families: each is a test in tests/workers/test_sandbox_groups.py (seccomp).
DENIED: dict[str, tuple[str, ...]] = {
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "keys": ("keyctl", "add_key", "request_key"),
    "bpf": ("bpf",),
    "perf": ("perf_event_open",),
    "userfaultfd": ("userfaultfd",),
    "namespaces": ("unshare", "setns"),
    "mount": ("mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
              "mount_setattr"),
    "tracing": ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
    "kernel": ("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
               "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime", "syslog", "quotactl", "iopl",
               "ioperm", "vhangup", "sethostname", "setdomainname", "lookup_dcookie"),
    "handles": ("name_to_handle_at", "open_by_handle_at", "fanotify_init"),
    "numa": ("mbind", "set_mempolicy", "move_pages", "migrate_pages"),
    # A match's seats inherit the CPU its runner leased (pinning.py); widened, a bot would run on the CPU
    # another match leased, whose pinned runner and seats cannot get away from it. Reading the affinity stays allowed.
    "affinity": ("sched_setaffinity",),
    # Long kernel work that costs no memory: on kernel 6.18 a throttled task is stopped only on its way back to user
    # mode, as a frozen one is, so neither the freezer nor the frozen group's CPU bound (cgroups.py) stops such a call
    # started just before a reply (tests/workers/bots/kernel_thief.py). The populating forms are refused (POPULATE).
    "populate": ("mlock", "mlock2", "mlockall", "process_madvise", "remap_file_pages"),
}
# (syscall, argument, mask, value): refused with EPERM where the masked argument equals value. madvise's advice is an
# int, so only its low 32 bits are compared (the kernel ignores the rest): MADV_POPULATE_READ, MADV_POPULATE_WRITE
# and MADV_COLLAPSE, which fill or copy a whole range in one call; mmap's MAP_POPULATE flag does the same at mapping.
POPULATE: tuple[tuple[str, int, int, int], ...] = (
    ("madvise", 2, 0xFFFFFFFF, 22), ("madvise", 2, 0xFFFFFFFF, 23), ("madvise", 2, 0xFFFFFFFF, 25),
    ("mmap", 3, 0x8000, 0x8000),
)
# clone(2) with any of these flags makes a namespace (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID,
# NEWNET, NEWTIME); clone3 hides its flags in a struct, so it is refused as a whole with ENOSYS.
CLONE_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
                         0x00000080)
# socket(2) of any family but AF_UNIX is refused with EAFNOSUPPORT. A seat has no network (its namespace holds only a
# loopback), yet on cgroup v1 the memory of inet and netlink sockets' buffers is not charged to its group: a bot that
# filled sockets to itself on its loopback, or netlink requests it never read, held some 600 MiB of the host's memory
# against a 256 MiB limit (tests/workers/test_sandbox_sockets.py). Unix sockets' buffers are charged.
SOCKET_FAMILY = 1  # AF_UNIX: the one family socket(2) may open
SECCOMP_PYTHON = "/usr/bin/python3"

_COMPILE = """
import errno, json, sys
import seccomp
rules = json.load(sys.stdin)
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
for name in rules["denied"]:
    try:
        f.add_rule(seccomp.ERRNO(errno.EPERM), name)
    except (ValueError, RuntimeError):
        pass  # a syscall this architecture or libseccomp does not know cannot be called either
f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
for flag in rules["clone_flags"]:
    f.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
for name, arg, mask, value in rules["populate"]:
    f.add_rule(seccomp.ERRNO(errno.EPERM), name, seccomp.Arg(arg, seccomp.MASKED_EQ, mask, value))
# Compared on all 64 bits: a family with high bits set, which the kernel would read as AF_UNIX, is refused too.
f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.NE, rules["socket_family"]))
f.export_bpf(sys.stdout)
"""


class SeccompUnavailable(RuntimeError):
    """The filter cannot be compiled here (python3-seccomp is missing)."""


def rules() -> dict[str, Any]:
    return {"denied": sorted({name for names in DENIED.values() for name in names}),
            "clone_flags": list(CLONE_NAMESPACE_FLAGS), "populate": [list(rule) for rule in POPULATE],
            "socket_family": SOCKET_FAMILY}


@functools.lru_cache(maxsize=4)
def bpf_path(lock_dir: str) -> str:
    """A file in lock_dir holding the compiled filter, made once per worker process. Raises SeccompUnavailable."""
    spec = json.dumps(rules(), sort_keys=True)
    done = subprocess.run([SECCOMP_PYTHON, "-I", "-c", _COMPILE], input=spec.encode(), capture_output=True,
                          timeout=30, check=False)
    if done.returncode != 0 or not done.stdout:
        raise SeccompUnavailable(f"cannot compile the sandbox's seccomp filter with {SECCOMP_PYTHON} "
                                 f"(install Debian's python3-seccomp; scripts/sysdeps.sh does): "
                                 f"{done.stderr.decode(errors='replace').strip()[-300:]}")
    # In the uid leases' dir (mode 0700, not the shared temp dir): the gate opens it as the worker's user, before the
    # drop to the seat's uid, and the bot never sees the file. Named by content, written whole, so workers share it.
    folder = make_lock_dir(lock_dir)
    path = folder / f"seccomp-{hashlib.sha256(done.stdout).hexdigest()[:16]}.bpf"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".seccomp-")
        with os.fdopen(fd, "wb") as out:
            out.write(done.stdout)
        os.replace(tmp, path)
    return str(path)
