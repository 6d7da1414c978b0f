"""Hostile: answers at once, and a few milliseconds after its first reply four threads start computing without end.
It waits for the look that comes with the next decision to pass, then takes the CPU all through another seat's long
move (stolen from that seat when the match is pinned to one CPU). Contained by the freezer's looks while another
seat decides: caught within one look, then frozen whenever it waits.
"""
import sys
import threading
import time

import ludus

THREADS = 4
started = False


def spin():
    time.sleep(0.005)  # past the check at the start of the next decision, which would see it idle
    while True:
        pass


def act(view, decision):
    global started
    if not started:
        started = True
        for _ in range(THREADS):
            threading.Thread(target=spin, daemon=True).start()
        print("pondering late in threads", file=sys.stderr)
    return 0


ludus.run(act)
