"""Hostile: floods stdout with megabytes of one endless line, then garbage lines, never a valid reply.

Contained by the 1 MiB line cap (too_long fault, the rest of the line is dropped unread into memory).
"""
import sys

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if b'"decide"' in line:
        out.write(b"x" * (8 << 20))  # 8 MiB without a newline; blocks once the worker stops reading
        out.write(b"\n" + b"garbage\n" * 100_000)
        out.flush()
