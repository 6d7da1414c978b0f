"""Hostile: fills the disk: one huge file, then many large ones, then the read-only places. Then plays on.

Contained by RLIMIT_FSIZE (EFBIG), the size of the /tmp tmpfs (ENOSPC) and read-only binds (EROFS).
Reports `<what>: wrote <n> MiB, <outcome>` on stderr.
"""
import sys

import ludus

CHUNK = b"x" * (1 << 20)


def fill(path, most):
    written = 0
    try:
        with open(path, "wb") as f:
            while written < most:
                f.write(CHUNK)
                f.flush()
                written += 1
        return written, "ok"
    except OSError as exc:
        return written, f"{type(exc).__name__} errno={exc.errno}"


n, outcome = fill("/tmp/huge", 10_000)
print(f"one file: wrote {n} MiB, {outcome}", file=sys.stderr)
total = 0
for i in range(1000):
    n, outcome = fill(f"/tmp/part{i}", 8)
    total += n
    if outcome != "ok":
        break
print(f"many files: wrote {total} MiB, {outcome}", file=sys.stderr)
for path in ("/bot/x", "/x", "/dev/x", "/usr/lib/x", "/dev/shm/x"):
    n, outcome = fill(path, 64)
    print(f"{path}: wrote {n} MiB, {outcome}", file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
