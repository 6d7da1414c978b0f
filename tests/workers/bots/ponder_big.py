"""Hostile: answers at once; after its first reply to a large view (over 3300 bytes of JSON, so that the accomplice's
next decide line overflows a one-page pipe: slow_reader.py), four threads wait 50 ms (past the look at the start of the
other seat's decision) and then compute without end. Contained by the looks while the worker writes the other seat's
decide line: caught within one look, then frozen whenever it waits."""
import json
import sys
import threading
import time

import ludus

THREADS = 4
started = False


def spin():
    time.sleep(0.05)
    while True:
        pass


def act(view, decision):
    global started
    if not started and len(json.dumps(view)) + len(json.dumps(decision)) > 3300:
        started = True
        for _ in range(THREADS):
            threading.Thread(target=spin, daemon=True).start()
        print("pondering late in threads", file=sys.stderr)
    return 0


ludus.run(act)
