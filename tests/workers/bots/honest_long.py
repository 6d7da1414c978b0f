"""An honest bot that takes long moves: 1 s of its own CPU time on each of its first 3 decisions, then answers at
once. Nothing after its replies. Logs `worked <cpu ms> in <wall ms>` for each long move."""
import sys
import time

import ludus

THINK = 1.0
moves = 0


def act(view, decision):
    global moves
    moves += 1
    if moves <= 3:
        wall, cpu = time.monotonic(), time.process_time()
        while time.process_time() - cpu < THINK:
            pass
        print(f"worked {(time.process_time() - cpu) * 1000:.0f} in {(time.monotonic() - wall) * 1000:.0f}",
              file=sys.stderr)
    return 0


ludus.run(act)
