"""Hostile: calls one kernel interface of each family the seccomp filter refuses, with arguments the kernel itself
would answer otherwise (a success, EINVAL, EFAULT, ESRCH...), and logs `<family> <call>: <result>`. Under the
filter each answers EPERM (clone3: ENOSYS)."""
import ctypes
import errno
import os
import sys

import ludus

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NULL = ctypes.c_void_p(0)
params = ctypes.create_string_buffer(256)
# One page to advise: mapped without MAP_POPULATE (PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS), which the filter allows.
page = libc.syscall(9, NULL, 4096, 1, 0x22, -1, 0)
cpus = ctypes.create_string_buffer(128)  # a cpu_set_t holding the affinity it has: setting it changes nothing
for cpu in os.sched_getaffinity(0):
    cpus[cpu // 8] = cpus.raw[cpu // 8] | (1 << cpu % 8)
CALLS = [  # family, name, x86-64 number, arguments
    ("io_uring", "io_uring_setup", 425, (2, params)),
    ("keys", "keyctl", 250, (0, -3, 1)),  # KEYCTL_GET_KEYRING_ID of the session keyring, creating it
    ("keys", "add_key", 248, (b"user", b"k", b"v", 1, -2)),
    ("bpf", "bpf", 321, (9999, NULL, 0)),
    ("perf", "perf_event_open", 298, (NULL, 0, -1, -1, 0)),
    ("userfaultfd", "userfaultfd", 323, (1,)),  # UFFD_USER_MODE_ONLY
    ("namespaces", "unshare", 272, (0x10000000,)),  # CLONE_NEWUSER
    ("namespaces", "setns", 308, (-1, 0)),
    ("namespaces", "clone", 56, (0x10000000 | 17, NULL, NULL, NULL, 0)),  # CLONE_NEWUSER | SIGCHLD
    ("namespaces", "clone3", 435, (NULL, 0)),
    ("mount", "mount", 165, (NULL, NULL, NULL, 0, NULL)),
    ("tracing", "ptrace", 101, (2, 999999, 0, 0)),  # PTRACE_PEEKDATA of no process
    ("kernel", "iopl", 172, (0,)),
    ("handles", "name_to_handle_at", 303, (-100, b"/", NULL, NULL, 0)),
    ("numa", "set_mempolicy", 238, (0, NULL, 0)),
    ("affinity", "sched_setaffinity", 203, (0, 128, cpus)),
    ("populate", "madvise", 28, (ctypes.c_void_p(page), 4096, 22)),  # MADV_POPULATE_READ
    ("populate", "madvise_high_bits", 28, (ctypes.c_void_p(page), 4096, ctypes.c_long((1 << 32) | 23))),
    ("populate", "mmap", 9, (NULL, 4096, 1, 0x22 | 0x8000, -1, 0)),  # MAP_POPULATE
    ("populate", "mlock", 149, (ctypes.c_void_p(page), 4096)),
    ("populate", "process_madvise", 440, (-1, NULL, 0, 25, 0)),  # MADV_COLLAPSE through a pidfd
]


def probe(number, args):
    result = libc.syscall(number, *args)
    if result == 0 and number == 56:
        os._exit(0)  # a child of a clone that went through: it must not play on
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


for family, name, number, args in CALLS:
    print(f"{family} {name}: {probe(number, args)}", file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
