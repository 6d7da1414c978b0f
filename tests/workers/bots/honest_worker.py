"""An honest bot that thinks: it uses 150 ms of its own CPU time on each of its first 6 decisions (30 % of a
500 ms move clock), then answers at once. Logs `worked <cpu ms> in <wall ms>` for each thinking move."""
import sys
import time

import ludus

THINK = 0.150
moves = 0


def act(view, decision):
    global moves
    moves += 1
    if moves <= 6:
        wall, cpu = time.monotonic(), time.process_time()
        while time.process_time() - cpu < THINK:
            pass
        print(f"worked {(time.process_time() - cpu) * 1000:.0f} in {(time.monotonic() - wall) * 1000:.0f}",
              file=sys.stderr)
    return 0


ludus.run(act)
