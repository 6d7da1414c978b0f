"""Hostile: starts busy processes in new sessions (out of reach of process-group kills), then answers at once. It
tries to take the CPU its opponents need on their own clock. Contained by the freezer: the seat's whole group is
frozen while another seat holds the decision.
"""
import os

import ludus

SPINNERS = 12
for _ in range(SPINNERS):
    try:
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    except OSError:
        break

ludus.run(lambda view, decision: 0)
