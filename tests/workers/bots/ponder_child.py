"""Hostile: at its first move it forks a child that computes without end (the bot itself answers at once and sleeps on
its stdin, as an honest bot does). Contained as ponder_thread.py is: the child is in the seat's group, so its CPU shows
on the group's counter and the whole group is frozen.
"""
import os
import sys

import ludus

started = False


def act(view, decision):
    global started
    if not started:
        started = True
        if os.fork() == 0:
            while True:
                pass
        print("pondering in a child", file=sys.stderr)
    return 0


ludus.run(act)
