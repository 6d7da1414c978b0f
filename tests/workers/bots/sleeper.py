"""Hostile: plays 2 decisions, then sleeps far past its bank. Timeout fault, killed, the seat forfeits."""
import time

import ludus

played = 0


def act(view, decision):
    global played
    played += 1
    if played > 2:
        time.sleep(3600)
    return 0


ludus.run(act)
