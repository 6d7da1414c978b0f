"""Hostile: allocates memory until it cannot. Contained by RLIMIT_AS: MemoryError, the bot dies, the seat forfeits."""
import sys

import ludus


def act(view, decision):
    hoard = []
    try:
        while True:
            hoard.append(bytearray(16 << 20))  # touched pages, not just reserved address space
    except MemoryError:
        print(f"MemoryError after {16 * len(hoard)} MiB", file=sys.stderr, flush=True)
        raise


ludus.run(act)
