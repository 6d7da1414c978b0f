"""Hostile: CPU inside the kernel after the freeze. Its children each start one long kernel call just before the bot
replies: madvise(MADV_POPULATE_READ) over a large read-only anonymous mapping, which maps the shared zero page into
every page of it (some 10 ms of kernel CPU a child, and next to no memory). The freezer stops a task only on its way
back to user mode, so the calls run on after the seat is frozen, on the CPU of the seat that decides next. The
sandbox's seccomp filter refuses the call (EPERM); the child says so in the seat's log and exits.
"""
import mmap
import os
import select
import sys
import time

import ludus

CHILDREN = 12
SIZE = 448 << 20  # under the 512 MiB address space of one process
MADV_POPULATE_READ = 22  # Linux 5.14

go_r, go_w = os.pipe()
os.set_blocking(go_w, False)
ready_r, ready_w = os.pipe()
children = 0
for _ in range(CHILDREN):
    try:
        pid = os.fork()
    except OSError:  # the seat's process limit
        break
    children += 1
    if pid == 0:
        area = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ)
        while os.read(go_r, 1):
            os.write(ready_w, b".")
            try:
                area.madvise(MADV_POPULATE_READ)
            except OSError as refused:
                print(f"kernel thief: madvise: {refused.strerror}", file=sys.stderr, flush=True)
                os._exit(1)
            area.madvise(mmap.MADV_DONTNEED)  # on its own next turn: the next call has every page to map again
        os._exit(0)
print(f"kernel thief: {children} children", file=sys.stderr)


def act(view, decision):
    try:
        os.write(go_w, b"." * children)
    except BlockingIOError:  # children still in their last call: they go on at once
        pass
    started, deadline = 0, time.monotonic() + 0.005
    while started < children and select.select([ready_r], [], [], max(0, deadline - time.monotonic()))[0]:
        started += len(os.read(ready_r, children))  # a child about to enter its call: reply now
    return 0


ludus.run(act)
