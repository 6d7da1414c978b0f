"""Hostile: tries to read other bots' files, the project's source and settings, the worker's environment.

Uploaded as a zip with targets.json (the paths to try, written by the test). Reports `read <path>: <outcome>`
and `env: <keys>` on stderr, then plays on. Contained by the mount namespace (none of it is mounted), the pid
namespace (no worker process is visible), --clearenv, and per-seat uids with 0700 seat dirs.
"""
import json
import os
import sys

import ludus


def read(path):
    try:
        if os.path.isdir(path):
            return f"LISTED {sorted(os.listdir(path))[:5]}"
        with open(path, "rb") as f:
            return f"READ {f.read(200)!r}"
    except OSError as exc:
        return f"failed {type(exc).__name__} errno={exc.errno}"


for path in json.load(open("targets.json")):
    print(f"read {path}: {read(path)}", file=sys.stderr)
print(f"env: {json.dumps(dict(os.environ), sort_keys=True)}", file=sys.stderr)
print(f"pid1 environ: {open('/proc/1/environ', 'rb').read()!r}", file=sys.stderr)
print(f"pids: {sorted(int(p) for p in os.listdir('/proc') if p.isdigit())}", file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
