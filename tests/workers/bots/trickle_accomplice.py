"""Hostile accomplice: on each of its first 3 decisions writes a space to its stdout every 2 ms for 0.5 s, then its
reply (leading spaces are allowed before the JSON). Each byte wakes the worker that waits for its reply; played beside
ponder_late.py, it tries to keep the freezer's looks at the waiting seat from ever coming due. Sleeps between bytes:
it takes no CPU the thief could be measured against. Logs `trickled <n> bytes` for each such move."""
import os
import sys
import time

import ludus

TRICKLE_S = 0.5
moves = 0


def act(view, decision):
    global moves
    moves += 1
    if moves <= 3:
        end, written = time.monotonic() + TRICKLE_S, 0
        while time.monotonic() < end:
            written += os.write(1, b" ")
            time.sleep(0.002)
        print(f"trickled {written} bytes", file=sys.stderr)
    return 0


ludus.run(act)
