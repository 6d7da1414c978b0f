"""An honest bot that takes 30 ms of wall time (asleep) over each decision, well inside its clock: long enough for the
worker to look at the waiting seats during its move."""
import time

import ludus


def act(view, decision):
    time.sleep(0.03)
    return 0


ludus.run(act)
