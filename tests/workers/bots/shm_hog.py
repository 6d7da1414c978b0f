"""Hostile: pins memory that is not in its address space, 128 MiB more at each decision (well within its clock) up
to 2 GiB, of the kind named in kind.txt beside it: memfd (memfd_create files written, never mapped), sysv (System V
segments attached, filled and detached), posix (shm_open files in /dev/shm) or tmpfs (files in /tmp). RLIMIT_AS
misses all four; the seat's control group counts them all. Then it plays on, holding it all.
"""
import ctypes
import os
import sys

import ludus

STEP = 16 << 20
TOTAL = 2 << 30
KIND = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kind.txt")).read().strip()
held = []
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p


def pin_memfd(i):
    fd = os.memfd_create(f"hog{i}")
    os.write(fd, b"m" * STEP)
    held.append(fd)


def pin_sysv(i):
    sid = libc.shmget(0, ctypes.c_size_t(STEP), 0o600 | 0o1000)  # IPC_PRIVATE, IPC_CREAT
    if sid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    addr = libc.shmat(sid, None, 0)
    ctypes.memset(addr, 1, STEP)
    libc.shmdt(ctypes.c_void_p(addr))  # detached: the segment stays, outside the address space


def pin_posix(i):
    import _posixshmem

    fd = _posixshmem.shm_open(f"/hog{i}", os.O_CREAT | os.O_RDWR, 0o600)
    os.write(fd, b"p" * STEP)
    os.close(fd)


def pin_tmpfs(i):
    with open(f"/tmp/hog{i}", "wb") as f:
        f.write(b"t" * STEP)


def hog(steps):
    pin = globals()[f"pin_{KIND}"]
    for i in steps:
        try:
            pin(i)
        except OSError as exc:
            print(f"{KIND}: stopped at {i * STEP >> 20} MiB: {type(exc).__name__} errno={exc.errno}", file=sys.stderr)
            return
        print(f"{KIND}: held {(i + 1) * STEP >> 20} MiB", file=sys.stderr, flush=True)


def act(view, decision):
    if act.pinned < TOTAL // STEP:
        hog(range(act.pinned, act.pinned + 8))
        act.pinned += 8
    return 0


act.pinned = 0
ludus.run(act)
