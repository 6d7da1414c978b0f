"""The host side of a seat's sandbox: the bwrap command line, the interpreter, the seat's uid and its processes.

The sandbox sees: the interpreter, its stdlib and the shared libraries it loads (read-only), the bot at /bot and the
SDK at /ludus (read-only), a private size-limited tmpfs at /tmp, its own /proc and a minimal /dev. It shares no
namespace with the worker: user, pid, net (an empty network namespace with only a loopback), ipc, uts and cgroup.

When the worker runs as root, each live seat also gets an unprivileged uid of its own (`UidLease`), so RLIMIT_NPROC,
file permissions and the final sweep (`kill_uid`) are per seat; the lease's number also names the seat's control
group (workers/sandbox/cgroups.py). `spawn` starts a seat without forking the worker: vfork, a gate that waits until the
process is in its group and has its rlimits, setpriv for the uid and the parent-death signal, then bwrap. See
docs/bots.md for what was verified on which host.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from workers.sandbox.cgroups import Host, remove_seat, seat_slots
from workers.sandbox.leases import make_lock_dir, take_lease

BOT_DIR = "/bot"
SDK_DIR = "/ludus"
# The whole environment of a sandboxed bot; nothing of the worker's environment is passed on.
SANDBOX_ENV: Mapping[str, str] = {
    "PATH": "/usr/bin:/bin",
    "PYTHONPATH": f"{SDK_DIR}:{BOT_DIR}",  # the SDK and the engine (/ludus/engine) before the bot's own modules
    "HOME": "/tmp",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "LANG": "C.UTF-8",
}
SHM_BYTES = 1 << 20  # /dev/shm, for multiprocessing's semaphores; /dev and / themselves are read-only
# -S: no `site`, so a bot sees the stdlib and the SDK only, whatever the host has installed (and starts faster).
# -P: the script's dir is not put first on the path (PYTHONPATH has it after /ludus), so a bot that ships an
# `engine` or `ludus` of its own cannot shadow the bound ones (docs/bots.md, "Search bots").
PYTHON_FLAGS = ("-S", "-P")
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
    """Where to look for the sandbox's python, best first: preferred (SandboxConfig.python, which the worker sets from
    LUDUS_SANDBOX_PYTHON), the system python, the worker's base."""
    found = [preferred, "/usr/bin/python3", getattr(sys, "_base_executable", None), sys.executable]
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
                  program: tuple[str, ...] = (f"{BOT_DIR}/main.py",), seccomp: bool = False,
                  shm_bytes: int = SHM_BYTES, engine_dir: str | None = None,
                  flags: tuple[str, ...] = PYTHON_FLAGS) -> list[str]:
    """The full argv: bwrap and its options, then the interpreter running /bot/main.py (or `program`).

    With engine_dir, that engine package is bound read-only at /ludus/engine (sdk_dir must hold an empty
    `engine` dir for it).

    With seccomp, bwrap loads the filter from fd 5 (the gate opens it there, see `spawn`). Another language's runtime
    (workers/sandbox/languages.py) comes as an Interpreter too, with its own flags.
    """
    cmd = [bwrap_path(), "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
           "--new-session", "--as-pid-1", "--hostname", "ludus", "--clearenv"]
    for key, value in SANDBOX_ENV.items():
        cmd += ["--setenv", key, value]
    for path in (*interp.binds, SHELL):
        cmd += ["--ro-bind", path, path]
    for target, link in interp.symlinks:
        cmd += ["--symlink", target, link]
    cmd += ["--ro-bind", bot_dir, BOT_DIR, "--ro-bind", sdk_dir, SDK_DIR]
    if engine_dir is not None:
        cmd += ["--ro-bind", engine_dir, f"{SDK_DIR}/engine"]
    cmd += ["--size", str(tmp_bytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
            "--size", str(shm_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/",
            "--chdir", BOT_DIR, *(["--seccomp", "5"] if seccomp else []),
            "--", SHELL, "-c", INNER, interp.executable, *flags, *program]
    return cmd


# --- starting a seat without forking the worker -----------------------------------------------------------------

SHELL = os.path.realpath("/bin/sh")
# The worker starts every seat through this gate, with vfork (no preexec_fn, no user=: Python then never forks the
# whole worker). The gate waits for one line on stdin: the worker writes it once the process is in its control group
# and has its rlimits, so nothing of the bot runs before. A worker that dies first closes the pipe: the gate exits.
GATE = 'read -r go || exit 1; exec "$@"'
# bwrap's monitor process (outside the sandbox) keeps fds 0-2 for the sandbox's whole life, so a bot that closed its
# stdin or stdout would never be noticed. So the protocol pipes reach bwrap as fds 3 and 4 (the monitor closes
# everything above 2) and the seccomp filter as fd 5; INNER, a shell inside the sandbox, makes 3 and 4 the bot's
# stdin and stdout before it runs the interpreter (dash takes only one-digit fd numbers, hence the renumbering).
GATE_RENUMBERED = 'read -r go || exit 1; exec "$@" 3<&0 4>&1 5<"$0" </dev/null >/dev/null'
INNER = 'exec "$0" "$@" <&3 >&4 3<&- 4>&- 5<&-'


def setpriv_prefix(uid: int | None) -> list[str]:
    """setpriv (util-linux): drop to the seat's uid with no groups, and have the kernel SIGKILL the process (then
    bwrap, whose --die-with-parent kills the bot) when the worker dies. The signal follows the *thread* that started
    the seat, so seats are started from the thread that plays the match (the match loop does)."""
    path = shutil.which("setpriv") or "/usr/bin/setpriv"
    if not os.path.exists(path):
        raise SandboxUnavailable("setpriv is not installed (Debian package util-linux)")
    ids = ["--reuid", str(uid), "--regid", str(uid), "--clear-groups"] if uid is not None else []
    return [path, *ids, "--pdeathsig", "KILL", "--"]


def spawn(argv: list[str], uid: int | None, limits: list[tuple[int, int]], env: Mapping[str, str], cwd: str,
          renumbered: bool, seccomp_file: str = "/dev/null",
          join: Callable[[int], None] | None = None) -> subprocess.Popen[bytes]:
    """Start argv behind the gate as uid, join its group (join(pid)), set its rlimits, then open the gate."""
    gate = [SHELL, "-c", GATE_RENUMBERED if renumbered else GATE, seccomp_file]
    proc = subprocess.Popen([*gate, *setpriv_prefix(uid), *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0, env=dict(env), cwd=cwd, start_new_session=True,
                            close_fds=True)
    try:
        if join is not None:
            join(proc.pid)
        for kind, value in limits:
            resource.prlimit(proc.pid, kind, (value, value))
        assert proc.stdin is not None
        os.write(proc.stdin.fileno(), b"\n")
    except BaseException:
        reap(proc)
        raise
    return proc


def reap(proc: subprocess.Popen[bytes]) -> None:
    """Kill a started gate or sandbox, wait for it and close its pipes."""
    killpg(proc.pid)
    kill_pid(proc.pid)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


# --- uids and processes: one unprivileged uid per live seat -----------------------------------------------------


class UidLease:
    """An exclusive uid for one seat, held by an flock on a lock file so that concurrent workers never share one.

    Its number also names the seat's control group (`seat-N`): a group whose lock nobody holds is a leftover.
    With groups, leftovers of the uid are killed through its group; without, by scanning /proc for the uid.
    """

    def __init__(self, uid_base: int, uid_count: int, lock_dir: str = "", groups: Host | None = None) -> None:
        locks = make_lock_dir(lock_dir)
        sweep_once(range(uid_base, uid_base + uid_count), locks, groups)
        start = (os.getpid() * 31 + time.monotonic_ns()) % uid_count
        lease = take_lease(locks, "uid", (uid_base + (start + i) % uid_count for i in range(uid_count)))
        if lease is None:
            raise RuntimeError(f"all {uid_count} sandbox uids from {uid_base} are in use")
        self.uid, self._lease = lease.number, lease
        # A worker that died freed its seats' leases with it, leaving them running (frozen ones do not act on the
        # parent-death signal), with their groups and dirs: whoever leases the uid next removes them first. With
        # groups, a leftover has its group (a few stats to look); without, the uid's processes are killed.
        if groups is None or any(path.exists() for path in groups.dirs(f"seat-{self.uid}").values()):
            clear_uid(self.uid, groups)

    def release(self) -> None:
        self._lease.release()


_swept: set[tuple[int, int, str]] = set()


def sweep_once(uids: range, locks: Path, groups: Host | None) -> None:
    """sweep_orphans, the first time this process asks for these uids and locks."""
    if (key := (uids.start, uids.stop, str(locks))) not in _swept:
        sweep_orphans(uids, locks, groups)
        _swept.add(key)


def sweep_orphans(uids: range, locks: Path, groups: Host | None = None) -> None:
    """Kill the processes and remove the seat dirs and control groups of every sandbox uid no live seat holds.

    That is what a worker killed with SIGKILL leaves behind: its seats' temp dirs (each owned by its seat's uid), their
    groups (`seat-N`, processes included) and, if it died in the instant between opening a seat's gate and setpriv
    arming the parent-death signal, an orphaned bot. This runs at worker start (`workers.sandbox.seat.prepare_worker`)
    and once per process before its first seat.
    """
    dirs = _seat_dirs_by_owner(uids)
    slots = {s for s in seat_slots(groups) if s in uids} if groups is not None else set()
    for uid in sorted({u for u in _uids_in_use() if u in uids} | set(dirs) | slots):
        if (lease := take_lease(locks, "uid", [uid])) is None:
            continue  # a live seat holds it
        try:
            clear_uid(uid, groups, dirs.get(uid, []))
        finally:
            lease.release()


def clear_uid(uid: int, groups: Host | None, dirs: list[str] | None = None) -> None:
    """Remove what a dead seat of uid left: its group (frozen, killed, thawed, removed), its processes and its seat
    dirs (dirs, or every /tmp/ludus-* dir the uid owns). The caller holds the uid's lock."""
    if groups is not None:
        remove_seat(groups, uid)
    kill_uid(uid)
    for path in dirs if dirs is not None else _seat_dirs_by_owner(range(uid, uid + 1)).get(uid, []):
        shutil.rmtree(path, ignore_errors=True)


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


def self_test(argv: list[str], uid: int | None, seccomp_file: str) -> None:
    """Once per process and command shape: start an empty sandbox. Raises SandboxUnavailable when bwrap fails.

    Without this, a host that refuses user namespaces would look like a bot that died at once, and the bot would
    forfeit for the host's fault; an infrastructure fault must fail the match instead
    (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).
    """
    key = (argv[0], str(uid is None), seccomp_file)
    if key in _working:
        return
    probe = argv[: argv.index("--") + 5 + len(PYTHON_FLAGS)] + ["-c", "pass"]  # the inner shell and interpreter
    proc = spawn(probe, uid, [], SANDBOX_ENV, "/", True, seccomp_file)
    _, err = proc.communicate(timeout=30)
    if proc.returncode != 0:
        raise SandboxUnavailable(f"bwrap cannot start a sandbox here: {err.decode(errors='replace')}")
    _working.add(key)
