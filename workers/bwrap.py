"""The bubblewrap command line for one bot seat, and the interpreter it runs (ARCHITECTURE §4).

The sandbox sees: the interpreter, its stdlib and the shared libraries it loads (read-only), the bot at /bot and the
SDK at /ludus (read-only), a private size-limited tmpfs at /tmp, its own /proc and a minimal /dev. It shares no
namespace with the worker: user, pid, net (an empty network namespace with only a loopback), ipc, uts and cgroup.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

BOT_DIR = "/bot"
SDK_DIR = "/ludus"
# The whole environment of a sandboxed bot; nothing of the worker's environment is passed on.
SANDBOX_ENV: Mapping[str, str] = {
    "PATH": "/usr/bin:/bin",
    "PYTHONPATH": SDK_DIR,
    "HOME": "/tmp",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "LANG": "C.UTF-8",
}
SHM_BYTES = 1 << 20  # /dev/shm, for multiprocessing's semaphores; /dev and / themselves are read-only
# -S: no `site`, so a bot sees the stdlib and the SDK only, whatever the host has installed (and starts faster).
PYTHON_FLAGS = ("-S",)
# Imported by the probe so that every shared library a bot may need shows up in its memory map.
_PROBE = """
import json, sys
for name in ("ssl", "ctypes", "sqlite3", "zlib", "lzma", "bz2", "_decimal", "hashlib", "select", "socket",
             "array", "math", "_json", "_pickle", "_random", "_struct", "unicodedata", "_multiprocessing"):
    try:
        __import__(name)
    except Exception:
        pass
libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if line.rstrip().endswith(".so")
               or ".so." in line.split()[-1]})
print(json.dumps({"prefix": sys.prefix, "exec_prefix": sys.exec_prefix, "path": sys.path, "libs": libs,
                  "version": list(sys.version_info[:2])}))
"""


class SandboxUnavailable(RuntimeError):
    """bwrap or a suitable interpreter is missing, or this kernel refuses unprivileged user namespaces."""


@dataclass(frozen=True)
class Interpreter:
    """A Python interpreter an unprivileged uid can run, with the host paths it needs bound read-only."""

    executable: str
    version: tuple[int, int]
    binds: tuple[str, ...]
    symlinks: tuple[tuple[str, str], ...]  # (target, link) pairs, as `--symlink target link`


def is_world_usable(path: str) -> bool:
    """True when any uid may reach path (every parent directory searchable by others) and read or run it."""
    real = os.path.realpath(path)
    parts = real.split("/")
    for i in range(2, len(parts)):
        st = os.stat("/".join(parts[:i]) or "/")
        if not st.st_mode & stat.S_IXOTH:
            return False
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IROTH) and (stat.S_ISDIR(mode) or bool(mode & stat.S_IXOTH))


def interpreter_candidates(preferred: str | None) -> list[str]:
    """Where to look for the sandbox's python, best first: the setting, the system python, the worker's base."""
    import sys

    found = [preferred, os.environ.get("LUDUS_SANDBOX_PYTHON"), "/usr/bin/python3",
             getattr(sys, "_base_executable", None), sys.executable]
    return [p for p in found if p]


@functools.lru_cache(maxsize=8)
def find_interpreter(preferred: str | None = None) -> Interpreter:
    """The first usable candidate interpreter, probed once. Raises SandboxUnavailable when there is none."""
    for candidate in interpreter_candidates(preferred):
        if os.path.exists(candidate) and is_world_usable(candidate):
            return _probe(os.path.realpath(candidate))
    raise SandboxUnavailable("no python interpreter that an unprivileged uid can run; set LUDUS_SANDBOX_PYTHON")


def _probe(executable: str) -> Interpreter:
    out = subprocess.run([executable, *PYTHON_FLAGS, "-c", _PROBE], capture_output=True, text=True, check=True,
                         env=dict(SANDBOX_ENV), cwd="/", timeout=30)
    info = json.loads(out.stdout)
    dirs = {executable}
    dirs.update(p for p in info["path"] if p.startswith(info["prefix"]) and os.path.isdir(p))
    dirs.update(os.path.dirname(lib) for lib in info["libs"])
    dirs.update(p for p in ("/usr/lib64", "/usr/lib32") if os.path.isdir(p) and not os.path.islink(p))
    binds, symlinks = _top_level_links(sorted(dirs))
    if executable.startswith("/usr/bin/") and os.path.basename(executable) != "python3":
        symlinks.append((os.path.basename(executable), "/usr/bin/python3"))
    return Interpreter(executable, tuple(info["version"]), tuple(_outermost(binds)), tuple(symlinks))


def _top_level_links(paths: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Bind paths, plus the merged-/usr links (/lib -> usr/lib) the loader's paths go through."""
    symlinks: list[tuple[str, str]] = []
    binds = list(paths)
    for top in ("/lib", "/lib64", "/lib32", "/bin"):
        if os.path.islink(top):
            symlinks.append((os.readlink(top), top))
        elif top in ("/lib", "/lib64") and os.path.isdir(top):
            binds.append(top)
    return binds, symlinks


def _outermost(paths: list[str]) -> list[str]:
    """Drop paths that lie inside another path of the list (binding the outer one covers them)."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def bwrap_path() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
    if path is None:
        raise SandboxUnavailable("bwrap is not installed (Debian package bubblewrap; see scripts/sysdeps.sh)")
    return path


def bwrap_command(interp: Interpreter, bot_dir: str, sdk_dir: str, tmp_bytes: int) -> list[str]:
    """The full argv: bwrap and its options, then the interpreter running /bot/main.py."""
    cmd = [bwrap_path(), "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
           "--new-session", "--as-pid-1", "--hostname", "ludus", "--clearenv"]
    for key, value in SANDBOX_ENV.items():
        cmd += ["--setenv", key, value]
    for path in interp.binds:
        cmd += ["--ro-bind", path, path]
    for target, link in interp.symlinks:
        cmd += ["--symlink", target, link]
    cmd += ["--ro-bind", bot_dir, BOT_DIR, "--ro-bind", sdk_dir, SDK_DIR,
            "--size", str(tmp_bytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
            "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/",
            "--chdir", BOT_DIR, "--", interp.executable, *PYTHON_FLAGS, f"{BOT_DIR}/main.py"]
    return cmd
