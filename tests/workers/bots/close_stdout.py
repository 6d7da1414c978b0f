"""Hostile: closes its stdout at its second decision and goes on running (sleeping), never to answer again. Before,
bwrap's own copy of the pipe kept it open, so the worker waited for the whole clock; now it is noticed at once."""
import os
import time

import ludus

played = 0


def act(view, decision):
    global played
    played += 1
    if played == 2:
        os.close(1)
        time.sleep(3600)
    return 0


ludus.run(act)
