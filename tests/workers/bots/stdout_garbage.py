"""Hostile: answers every decision with a line of garbage. Each is a bad_json fault; the seat forfeits."""
import sys

for line in sys.stdin:
    if '"decide"' in line:
        sys.stdout.write("this is not { json\n")
        sys.stdout.flush()
