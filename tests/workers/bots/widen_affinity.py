"""Hostile: started pinned to its match's CPU, tries to move itself (its main thread, then a new thread) onto every CPU
of the machine, where another match's pinned runner and seats could not get away from it. Logs
`affinity before: <cpus>`, `widen: <ok or errno>`, `widen thread: <ok or errno>` and `affinity after: <cpus>`."""
import errno
import os
import sys
import threading

import ludus


def widen() -> str:
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "ok"


def show(what, cpus):
    print(f"{what}: {','.join(map(str, sorted(cpus)))}", file=sys.stderr, flush=True)


show("affinity before", os.sched_getaffinity(0))
print(f"widen: {widen()}", file=sys.stderr, flush=True)
answers = []
thread = threading.Thread(target=lambda: answers.append(widen()))
thread.start()
thread.join()
print(f"widen thread: {answers[0]}", file=sys.stderr, flush=True)
show("affinity after", os.sched_getaffinity(0))
ludus.run(lambda view, decision: 0)
