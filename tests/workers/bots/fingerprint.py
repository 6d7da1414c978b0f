"""Collects everything it can read about itself and the host, writes it to stderr as one `fingerprint:` line, then
plays its first option. A bot that played cleanly only where this said "validation" would pass and then misbehave."""
import json
import os
import socket
import sys

import ludus


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError as exc:
        return f"<{type(exc).__name__}>"


def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return f"<{type(exc).__name__}>"


def links(path):
    found = {}
    for name in listing(path) if isinstance(listing(path), list) else []:
        try:
            found[name] = os.readlink(os.path.join(path, name))
        except OSError as exc:
            found[name] = f"<{type(exc).__name__}>"
    return found


def stat_of(path):
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"<{type(exc).__name__}>"
    return {"mode": oct(st.st_mode), "uid": st.st_uid, "gid": st.st_gid, "ino": st.st_ino, "dev": st.st_dev}


SEEN = {
    "argv": sys.argv, "orig_argv": getattr(sys, "orig_argv", None), "executable": sys.executable, "path": sys.path,
    "cwd": os.getcwd(), "env": dict(os.environ), "uname": list(os.uname()), "hostname": socket.gethostname(),
    "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups()], "pid": os.getpid(),
    "ppid": os.getppid(), "pgid": os.getpgrp(), "sid": os.getsid(0), "cpu_count": os.cpu_count(),
    "affinity": sorted(os.sched_getaffinity(0)), "umask": os.umask(0o022),
    "mountinfo": read("/proc/self/mountinfo"), "mounts": read("/proc/self/mounts"), "cgroup": read("/proc/self/cgroup"),
    "status": read("/proc/self/status"), "limits": read("/proc/self/limits"), "cmdline_1": read("/proc/1/cmdline"),
    "environ_1": read("/proc/1/environ"), "stat": read("/proc/stat"), "loadavg": read("/proc/loadavg"),
    "uptime": read("/proc/uptime"), "uid_map": read("/proc/self/uid_map"), "gid_map": read("/proc/self/gid_map"),
    "ns": links("/proc/self/ns"), "fds": links("/proc/self/fd"), "proc": listing("/proc"), "root": listing("/"),
    "bot": listing("/bot"), "sdk": listing("/ludus"), "tmp": listing("/tmp"), "shm": listing("/dev/shm"),
    "dev": listing("/dev"), "stat_bot": stat_of("/bot"), "stat_tmp": stat_of("/tmp"), "stat_sdk": stat_of("/ludus"),
    "stat_main": stat_of("/bot/main.py"), "cwd_link": links("/proc/self").get("cwd"),
    "root_link": links("/proc/self").get("root"), "exe": links("/proc/self").get("exe"),
}
bot = ludus.Bot()


def act(view, decision):
    if "hello" not in SEEN:  # what the engine told it: the game, its seat, the players, the options, the clock
        SEEN["hello"] = bot.hello
        print("fingerprint: " + json.dumps(SEEN, sort_keys=True), file=sys.stderr, flush=True)
    return 0


ludus.run(act, bot=bot)
