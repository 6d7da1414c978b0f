"""An honest bot that computes hard right up to each reply (about 20 ms of its own CPU time a decision, nothing
after): the CPU counter read at its reply may lag behind its last tick of work, which must never be taken for
computing off its turn."""
import time

import ludus


def act(view, decision):
    start = time.process_time()
    while time.process_time() - start < 0.020:
        pass
    return 0


ludus.run(act)
