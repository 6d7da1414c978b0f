"""Hostile: answers every decision with the previous decision's seq. Each is a stale_seq fault; it forfeits."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "decide":
        sys.stdout.write(json.dumps({"seq": message["seq"] - 1, "choice": 0}) + "\n")
        sys.stdout.flush()
