"""Hostile: closes its stdin after its first decision and keeps its stdout open, spinning. The next decide finds
the pipe closed at once (EPIPE), not at the clock."""
import os
import sys


def act(view, decision):
    sys.stdout.buffer.write(b'{"seq":%d,"choice":0}\n' % act.seq)
    sys.stdout.buffer.flush()
    os.close(0)
    while True:
        pass


for line in sys.stdin.buffer:
    if b'"decide"' in line:
        act.seq = int(line.split(b'"seq":')[1].split(b",")[0])
        act(None, None)
