"""The host side of a seat's sandbox: the bwrap command line, the interpreter, the seat's uid and its processes.

The sandbox sees: the interpreter, its stdlib and the shared libraries it loads (read-only), the bot at /bot and the
SDK at /ludus (read-only), a private size-limited tmpfs at /tmp, its own /proc and a minimal /dev. It shares no
namespace with the worker: user, pid, net (an empty network namespace with only a loopback), ipc, uts and cgroup.

When the worker runs as root, each live seat also gets an unprivileged uid of its own (`UidLease`), so RLIMIT_NPROC,
file permissions and the final sweep (`kill_uid`) are per seat. See docs/bots.md for what was verified on which host.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

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


def bwrap_command(interp: Interpreter, bot_dir: str, sdk_dir: str, tmp_bytes: int,
                  program: tuple[str, ...] = (f"{BOT_DIR}/main.py",)) -> list[str]:
    """The full argv: bwrap and its options, then the interpreter running /bot/main.py (or `program`)."""
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
            "--chdir", BOT_DIR, "--", interp.executable, *PYTHON_FLAGS, *program]
    return cmd


# --- uids and processes: one unprivileged uid per live seat -----------------------------------------------------


class UidLease:
    """An exclusive uid for one seat, held by an flock on a lock file so that concurrent workers never share one."""

    def __init__(self, uid_base: int, uid_count: int, lock_dir: str = "") -> None:
        locks = Path(lock_dir or default_lock_dir())
        locks.mkdir(mode=0o700, parents=True, exist_ok=True)
        if (key := (uid_base, uid_count, str(locks))) not in _swept:
            sweep_orphans(range(uid_base, uid_base + uid_count), locks)
            _swept.add(key)
        start = (os.getpid() * 31 + time.monotonic_ns()) % uid_count
        for i in range(uid_count):
            uid = uid_base + (start + i) % uid_count
            fd = os.open(locks / f"uid-{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            kill_uid(uid)  # whatever a crashed worker left behind under this uid
            return
        raise RuntimeError(f"all {uid_count} sandbox uids from {uid_base} are in use")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


_swept: set[tuple[int, int, str]] = set()


def sweep_orphans(uids: range, locks: Path) -> None:
    """Kill the processes and remove the seat dirs of every sandbox uid that no live seat holds.

    That is what a crashed worker leaves behind: its seats' temp dirs (each owned by its seat's uid) and, if it was
    killed in the few milliseconds between starting bwrap and bwrap arming --die-with-parent, an orphaned bot.
    This runs once per worker process; each lease also kills leftovers of its own uid.
    """
    dirs = _seat_dirs_by_owner(uids)
    for uid in sorted({u for u in _uids_in_use() if u in uids} | set(dirs)):
        fd = os.open(locks / f"uid-{uid}.lock", os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # a live seat holds it
        try:
            kill_uid(uid)
            for path in dirs.get(uid, []):
                shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


def _seat_dirs_by_owner(uids: range) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for entry in os.scandir(tempfile.gettempdir()):
        if entry.name.startswith("ludus-") and entry.is_dir(follow_symlinks=False):
            owner = entry.stat(follow_symlinks=False).st_uid
            if owner in uids:
                found.setdefault(owner, []).append(entry.path)
    return found


def _uids_in_use() -> set[int]:
    return {uid for uid, state in processes().values() if state != "Z"}


def default_lock_dir() -> str:
    return "/run/ludus-sandbox" if os.access("/run", os.W_OK) else os.path.join(tempfile.gettempdir(), "ludus-uids")


def processes() -> dict[int, tuple[int, str]]:
    """Every process as pid -> (real uid, state letter), from /proc/<pid>/status (the directory's owner can lie)."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                status = Path(entry.path, "status").read_text()
            except OSError:
                continue
            state = status[status.index("\nState:\t") + 8]
            uid = int(status[status.index("\nUid:\t") + 6:].split("\t", 1)[0])
            found[int(entry.name)] = (uid, state)
    return found


def pids_of_uid(uid: int) -> list[int]:
    """Live (non-zombie) processes whose real uid is uid."""
    return [pid for pid, (owner, state) in processes().items() if owner == uid and state != "Z"]


def kill_uid(uid: int, timeout: float = 2.0) -> None:
    """SIGKILL every process of uid until none is left (a fork bomb may fork while we kill)."""
    deadline = time.monotonic() + timeout
    while (pids := pids_of_uid(uid)) and time.monotonic() < deadline:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.005)


def children_of(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def kill_pid(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# --- starting -------------------------------------------------------------------------------------------------


_working: set[tuple[str, ...]] = set()


def self_test(argv: list[str], uid: int | None) -> None:
    """Once per process and command shape: start an empty sandbox. Raises SandboxUnavailable when bwrap fails.

    Without this, a host that refuses user namespaces would look like a bot that died at once, and the bot would
    forfeit for the host's fault; an infrastructure fault must fail the match instead (ARCHITECTURE §4).
    """
    key = (argv[0], str(uid is None))
    if key in _working:
        return
    probe = argv[: argv.index("--") + 2] + ["-S", "-c", "pass"]
    done = subprocess.run(probe, capture_output=True, env=dict(SANDBOX_ENV), cwd="/", timeout=30,
                          user=uid, group=uid, extra_groups=[] if uid is not None else None)
    if done.returncode != 0:
        raise SandboxUnavailable(f"bwrap cannot start a sandbox here: {done.stderr.decode(errors='replace')}")
    _working.add(key)


_PR_SET_PDEATHSIG = 1


def limiter(limits: list[tuple[int, int]]) -> Callable[[], None]:
    """The preexec_fn: runs in the child after the uid drop, before exec. Sets each limit soft = hard, and has the
    kernel SIGKILL the child if the worker dies before bwrap's own --die-with-parent is in place."""
    libc = ctypes.CDLL(None, use_errno=True)  # loaded here, in the worker: the child only makes the call
    worker = os.getpid()

    def apply() -> None:
        for kind, value in limits:
            resource.setrlimit(kind, (value, value))
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != worker:  # the worker died between fork and prctl
            os._exit(1)

    return apply
