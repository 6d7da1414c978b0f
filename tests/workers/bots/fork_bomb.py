"""Hostile: a fork bomb whose children keep forking and then sleep, while the parent plays on.

Contained by RLIMIT_NPROC (per seat uid) and the pid namespace; finish() must leave no process behind.
"""
import os
import sys
import time

import ludus


def bomb():
    forks = 0
    while True:
        try:
            pid = os.fork()
        except OSError as exc:
            return forks, exc
        if pid == 0:  # a child: fork on, then linger forever
            try:
                while True:
                    os.fork()
            except OSError:
                pass
            while True:
                time.sleep(60)
        forks += 1


forks, error = bomb()
print(f"fork failed after {forks} forks: {type(error).__name__} errno={error.errno}", file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
