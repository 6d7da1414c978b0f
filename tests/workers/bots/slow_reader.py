"""Hostile accomplice: shrinks its stdin pipe to one page (F_SETPIPE_SZ, 4096 bytes), so that a decide line longer
than that (Evolution's views reach 4 to 6 KB mid-game) blocks the worker while it writes it; each time a line fills
the pipe it waits 0.8 s, asleep (no CPU), before reading it, on its first 3 such lines. Played beside ponder_big.py,
it tries to hold the worker in the write of the decide line, where no look at the waiting seats came. Logs
`line <n> bytes, read late` for each such line."""
import array
import fcntl
import select
import sys
import termios
import time

import ludus

F_SETPIPE_SZ = 1031
PAGE = 4096
DELAY_S = 0.8
fcntl.fcntl(0, F_SETPIPE_SZ, PAGE)
late = 0


def lines():
    global late
    stdin = sys.stdin.buffer
    unread = array.array("i", [0])
    while True:
        select.select([0], [], [])
        time.sleep(0.002)  # the worker fills the pipe, if the line is longer than it
        fcntl.ioctl(0, termios.FIONREAD, unread)
        full = unread[0] >= PAGE and late < 3
        if full:
            late += 1
            time.sleep(DELAY_S)
        line = stdin.readline()
        if not line:
            return
        if full:
            print(f"line {len(line)} bytes, read late", file=sys.stderr)
        yield line


ludus.run(lambda view, decision: 0, stdin=lines())
