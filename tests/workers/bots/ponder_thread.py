"""Hostile: from its first move on, a thread computes without end, so the bot goes on thinking after each reply while
the other seats decide (pondering on their clock). Contained by the freezer: it is caught the first time its group's
CPU counter rises after a reply, frozen at once, and frozen off its turn for the rest of the match.
"""
import sys
import threading

import ludus

started = False


def spin():
    while True:
        pass


def act(view, decision):
    global started
    if not started:
        started = True
        threading.Thread(target=spin, daemon=True).start()
        print("pondering in a thread", file=sys.stderr)
    return 0


ludus.run(act)
