"""Hostile: tries to reach PostgreSQL and Redis on the host, by TCP and by unix socket, then plays on.

Contained by the seccomp filter (no socket but AF_UNIX), the network namespace (empty but for a loopback) and the
filesystem view (no /var/run/postgresql). Reports every attempt on stderr as `connect <target>: <outcome>`.
"""
import os
import socket
import sys

import ludus


def attempt(target):
    family = socket.AF_UNIX if isinstance(target, str) else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.5)
            sock.connect(target)
            return "CONNECTED"
    except OSError as exc:
        return f"failed {type(exc).__name__} errno={exc.errno}"


def interfaces():
    try:
        return sorted(name for _, name in socket.if_nameindex())
    except OSError as exc:
        return f"failed {type(exc).__name__} errno={exc.errno}"


for target in [("127.0.0.1", 5432), ("127.0.0.1", 6379), ("localhost", 5432),
               "/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432", "/run/redis/redis-server.sock"]:
    print(f"connect {target}: {attempt(target)}", file=sys.stderr)
print(f"interfaces: {interfaces()}", file=sys.stderr)
print(f"tcp listeners: {len(open('/proc/net/tcp').read().splitlines()) - 1}", file=sys.stderr)
print(f"postgres dir exists: {os.path.exists('/var/run/postgresql')}", file=sys.stderr, flush=True)
ludus.run(lambda view, decision: 0)
