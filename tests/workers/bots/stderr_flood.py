"""Hostile: writes 20 MiB to stderr (directly and through print) and plays well. The log keeps its head and its
tail (the last line written); no fault."""
import sys

import ludus

sys.stderr.write("start of the flood\n")
for _ in range(10):
    sys.stderr.write("e" * (1 << 20))


def act(view, decision):
    print("p" * (1 << 20))  # the SDK sends print() to stderr
    return 0


ludus.run(act)
sys.stderr.write("end of the game\n")
