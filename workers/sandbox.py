"""Uploaded bots as sandboxed processes: one bubblewrap sandbox per seat, spoken to in JSON lines (ARCHITECTURE §4).

`make_sandboxed_seat(bot_version, seat, match)` is what the match runner calls. It returns a `SandboxedSeat`, a
`workers.seats.SeatPlayer`: the bot's files are unpacked into a private temp dir, the process starts under `bwrap`
as an unprivileged uid of its own (when the worker runs as root) with rlimits, and every decision is a `decide`
line answered by one reply line within `move_ms + bank_ms`. Nothing outlives `finish()`: the process tree, the temp
dir, the pipes and the uid are all given back.

`LUDUS_SANDBOX=none` runs uploaded code without bwrap (still with rlimits and its own uid). It exists for
development machines without user namespaces; production settings must refuse it unless DEBUG is on.
"""

from __future__ import annotations

import io
import math
import os
import resource
import select
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from engine import protocol
from engine.core import Decision
from workers.bwrap import (
    SANDBOX_ENV,
    SandboxUnavailable,
    UidLease,
    bwrap_command,
    children_of,
    find_interpreter,
    kill_pid,
    kill_uid,
    killpg,
    limiter,
    pids_of_uid,
    self_test,
)
from workers.metrics import count_sandbox_kill
from workers.seats import Reply, SeatDied

__all__ = [
    "BadBotSource", "SandboxConfig", "SandboxUnavailable", "SandboxedSeat", "check_source", "make_sandboxed_seat",
    "pids_of_uid", "sandbox_kind", "unpack_bot",
]

SANDBOX_KINDS = ("bwrap", "none")
SDK_SOURCE = Path(__file__).resolve().parent.parent / "engine" / "sdk.py"
_CHUNK = 1 << 16
MiB = 1 << 20


@dataclass(frozen=True)
class SandboxConfig:
    """Limits of one seat's sandbox. The defaults suit a ladder match; tournaments may tighten them."""

    cpu_seconds: int = 120  # RLIMIT_CPU per process: a backstop, the clock kills a slow bot long before
    memory_bytes: int = 512 * MiB  # RLIMIT_AS per process
    max_processes: int = 16  # RLIMIT_NPROC: tasks (processes and threads) of the seat's uid
    max_open_files: int = 64  # RLIMIT_NOFILE
    max_file_bytes: int = 16 * MiB  # RLIMIT_FSIZE: the largest file a bot may write
    tmp_bytes: int = 64 * MiB  # size of the private tmpfs at /tmp
    stderr_bytes: int = 64 * 1024  # the seat's log is cut here, with a "[truncated]" marker
    startup_ms: int = 2000  # extra allowance on the first decision for starting the interpreter; never charged
    finish_ms: int = 200  # how long a bot may take to exit on its own after `result`
    upload_bytes: int = 16 * MiB  # the bot's unpacked files, in total
    upload_files: int = 256
    uid_base: int = 20000  # when the worker runs as root, each live seat gets its own uid in
    uid_count: int = 1000  # [uid_base, uid_base + uid_count)
    lock_dir: str = ""  # where the uid leases are held ("" picks /run/ludus-sandbox or the temp dir)
    python: str | None = None  # the interpreter (default: LUDUS_SANDBOX_PYTHON, then /usr/bin/python3)

    def rlimits(self) -> list[tuple[int, int]]:
        return [
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_NPROC, self.max_processes),
            (resource.RLIMIT_NOFILE, self.max_open_files),
            (resource.RLIMIT_FSIZE, self.max_file_bytes),
            (resource.RLIMIT_CORE, 0),
        ]


class BadBotSource(ValueError):
    """An upload that is not a .py file or a .zip with main.py within the size limits."""


# --- the bot's files ----------------------------------------------------------------------------------------------


def unpack_bot(source: bytes, filename: str, dest: Path, config: SandboxConfig = SandboxConfig()) -> None:
    """Write an upload into dest as main.py (a .py) or its files (a .zip with main.py). Raises BadBotSource."""
    dest.mkdir(mode=0o755, exist_ok=True)
    suffix = filename.lower().rsplit(".", 1)[-1]
    if suffix == "py":
        if len(source) > config.upload_bytes:
            raise BadBotSource(f"{filename} is {len(source)} bytes, over the {config.upload_bytes} limit")
        _write_file(dest / "main.py", source)
    elif suffix == "zip":
        _unpack_zip(source, filename, dest, config)
    else:
        raise BadBotSource(f"a bot is a .py file or a .zip with main.py, got {filename!r}")


def check_source(source: bytes, filename: str, config: SandboxConfig = SandboxConfig()) -> None:
    """Validate an upload without keeping it (for the upload API). Raises BadBotSource."""
    with tempfile.TemporaryDirectory(prefix="ludus-check-") as tmp:
        unpack_bot(source, filename, Path(tmp) / "bot", config)


def _unpack_zip(source: bytes, filename: str, dest: Path, config: SandboxConfig) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(source))
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, ValueError) as exc:
        raise BadBotSource(f"{filename} is not a zip file: {exc}") from None
    if len(members) > config.upload_files:
        raise BadBotSource(f"{filename} holds {len(members)} files, over the {config.upload_files} limit")
    names = [_safe_name(m.filename, filename) for m in members]
    if len(set(names)) != len(names):
        raise BadBotSource(f"{filename} holds the same path twice")
    strip = _common_folder(names)
    if "main.py" not in {"/".join(n[strip:]) for n in names}:
        raise BadBotSource(f"{filename} has no main.py at its top level")
    try:
        _extract(archive, members, [n[strip:] for n in names], dest, config.upload_bytes, filename)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as exc:
        raise BadBotSource(f"{filename} cannot be unpacked: {exc}") from None


def _extract(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], names: list[tuple[str, ...]], dest: Path,
             limit: int, filename: str) -> None:
    budget = limit
    with archive:
        for member, name in zip(members, names, strict=True):
            with archive.open(member) as stream:
                data = stream.read(budget + 1)  # never more than the budget, whatever the header claims
            budget -= len(data)
            if budget < 0:
                raise BadBotSource(f"{filename} unpacks to more than {limit} bytes")
            target = dest.joinpath(*name)
            _make_dirs(dest, target.parent)
            _write_file(target, data)


def _safe_name(name: str, filename: str) -> tuple[str, ...]:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts or name.startswith("/") or any(p in ("..", "") for p in parts) or ":" in parts[0]:
        raise BadBotSource(f"{filename} holds an unsafe path {name!r}")
    return parts


def _common_folder(names: list[tuple[str, ...]]) -> int:
    """1 when every file sits in one top folder holding main.py (a zipped folder), else 0."""
    tops = {n[0] for n in names}
    return 1 if len(tops) == 1 and all(len(n) > 1 for n in names) and any(n[1:] == ("main.py",) for n in names) else 0


def _make_dirs(root: Path, directory: Path) -> None:
    for parent in reversed([directory, *directory.parents]):
        if parent.is_relative_to(root) and not parent.exists():
            parent.mkdir(mode=0o755)


def _write_file(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    path.chmod(0o444)


# --- the seat -----------------------------------------------------------------------------------------------------


@dataclass
class _StderrLog:
    """The seat's stderr, drained by a thread into a capped buffer."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def drain(self, fd: int) -> None:
        while chunk := _read_retrying(fd):
            with self.lock:
                room = max(0, self.cap - len(self.data))
                self.data += chunk[:room]
                self.dropped += len(chunk) - min(room, len(chunk))

    def text(self) -> str:
        with self.lock:
            text = self.data.decode("utf-8", "replace")
            return text + (f"\n[truncated: {self.dropped} more bytes]\n" if self.dropped else "")

    def note(self, line: str) -> None:
        with self.lock:
            self.data += f"[ludus] {line}\n".encode()[: max(0, self.cap + 1024 - len(self.data))]


def _read_retrying(fd: int) -> bytes:
    try:
        return os.read(fd, _CHUNK)
    except OSError:
        return b""


@dataclass
class _Resources:
    """Everything a seat holds on the host; `close` gives it all back and is safe to call twice."""

    seat_dir: Path
    lease: UidLease | None = None
    proc: subprocess.Popen[bytes] | None = None
    stderr_thread: threading.Thread | None = None
    closed: bool = False

    def kill(self) -> None:
        """Kill the sandbox: the bot first, pid 1 of its namespace (the kernel kills the rest), then reap bwrap."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            bots = children_of(proc.pid)  # none yet if bwrap is still setting up
            for child in bots:
                kill_pid(child)
            try:
                proc.wait(timeout=1.0 if bots else 0.05)
            except subprocess.TimeoutExpired:
                killpg(proc.pid)
                proc.wait()
        if self.lease is not None:
            kill_uid(self.lease.uid)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.kill()
        if self.stderr_thread is not None:
            self.stderr_thread.join(timeout=2.0)
        if self.proc is not None:
            for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()
        shutil.rmtree(self.seat_dir, ignore_errors=True)
        if self.lease is not None:
            self.lease.release()


class SandboxedSeat:
    """An uploaded bot in its own sandboxed process: a SeatPlayer (workers/seats.py)."""

    needs_view = True

    def __init__(self, source: bytes, filename: str, config: SandboxConfig | None = None,
                 sandbox: str = "bwrap", label: str = "seat") -> None:
        if sandbox not in SANDBOX_KINDS:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_KINDS)}, got {sandbox!r}")
        self.config = config or SandboxConfig()
        self.sandbox = sandbox
        self.source, self.filename = source, filename
        self._res = _Resources(Path(tempfile.mkdtemp(prefix=f"ludus-{label}-")))
        self._finalizer = weakref.finalize(self, self._res.close)
        self._log = _StderrLog(self.config.stderr_bytes)
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already searched for a newline
        self._discarding = False  # inside a line that was too long: drop bytes up to its newline
        self._dead: str | None = None
        self._first = True
        self.move_ms = 1000  # the soft limit per decision, taken from hello's clock

    # --- SeatPlayer --------------------------------------------------------------------------------------------

    @property
    def seat_dir(self) -> Path:
        """The host temp dir holding this seat's files (its bot is at seat_dir/bot)."""
        return self._res.seat_dir

    @property
    def uid(self) -> int | None:
        return self._res.lease.uid if self._res.lease else None

    @property
    def pid(self) -> int | None:
        return self._res.proc.pid if self._res.proc else None

    def start(self, hello: dict[str, Any]) -> None:
        """Unpack the bot, start its sandbox and send hello. A broken upload or a failed start raises SeatDied."""
        self.move_ms = int(hello.get("clock", {}).get("move_ms", self.move_ms))
        try:
            self._spawn()
        except BadBotSource as exc:
            self._die(f"bad upload: {exc}", "bad_upload")
            raise SeatDied(str(exc)) from None
        if not self._send(protocol.encode(hello), time.monotonic() + self.config.startup_ms / 1000):
            self._die("the bot did not read its hello", "no_hello")
            raise SeatDied("the bot did not read its hello")

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        """Send decide seq and wait for one reply line until move_ms + bank_ms. Raises SeatDied if the bot is gone."""
        if self._dead is not None:
            raise SeatDied(self._dead)
        clock = {"move_ms": self.move_ms, "bank_ms": bank_ms}
        allowance = self.config.startup_ms if self._first else 0
        self._first = False
        line_out = protocol.encode(protocol.decide(seq, view, decision, clock))  # the engine's time, not the bot's
        t0 = time.monotonic()
        deadline = t0 + (allowance + clock["move_ms"] + bank_ms) / 1000
        sent = self._send(line_out, deadline)
        line = self._read_line(deadline) if sent else None
        ms = max(0, int((time.monotonic() - t0) * 1000) - allowance)
        if line is None:
            limit = clock["move_ms"] + bank_ms
            self._die(f"decision {seq}: no reply within {limit} ms; killed", "timeout")
            return Reply(choice=0, ms=ms, fault="timeout", detail=f"no reply within {limit} ms")
        if isinstance(line, protocol.ProtocolFault):
            return Reply(choice=0, ms=ms, fault=line.code, detail=str(line))
        try:
            return Reply(choice=protocol.parse_reply(line, seq, len(decision.options)), ms=ms)
        except protocol.ProtocolFault as fault:
            return Reply(choice=0, ms=ms, fault=fault.code, detail=str(fault))

    def finish(self, outcome: dict[str, Any]) -> None:
        """Send result, give the bot finish_ms to exit, then kill what is left and give every resource back."""
        message = outcome if outcome.get("type") == "result" else protocol.result(outcome)
        try:
            if self._dead is None and self._res.proc is not None:
                deadline = time.monotonic() + self.config.finish_ms / 1000
                if self._send(protocol.encode(message), deadline):
                    self._close_stdin()
                    self._wait_exit(deadline)
        finally:
            self.close()

    def log(self) -> str:
        """The seat's stderr, capped at config.stderr_bytes, with the sandbox's own notes."""
        return self._log.text()

    def close(self) -> None:
        """Kill the sandbox and remove its files (idempotent; also run when the seat is garbage-collected)."""
        if self._dead is None and self._res.proc is not None and self._res.proc.poll() is None:
            count_sandbox_kill("stopped")  # still running: a forfeit, an aborted match, or no exit after result
        self._dead = self._dead or "closed"
        self._finalizer()

    # --- process -----------------------------------------------------------------------------------------------

    def _spawn(self) -> None:
        unpack_bot(self.source, self.filename, self.seat_dir / "bot", self.config)
        sdk_dir = self.seat_dir / "ludus"
        sdk_dir.mkdir(mode=0o755)
        _write_file(sdk_dir / "ludus.py", SDK_SOURCE.read_bytes())
        interp = find_interpreter(self.config.python)
        is_root = os.geteuid() == 0
        if is_root:
            self._res.lease = UidLease(self.config.uid_base, self.config.uid_count, self.config.lock_dir)
            os.chown(self.seat_dir, self._res.lease.uid, self._res.lease.uid)
        os.chmod(self.seat_dir, 0o700)
        uid = self._res.lease.uid if self._res.lease else None
        if self.sandbox == "bwrap":
            argv = bwrap_command(interp, str(self.seat_dir / "bot"), str(sdk_dir), self.config.tmp_bytes)
            env, cwd = dict(SANDBOX_ENV), "/"
            self_test(argv, uid)
        else:
            argv = [interp.executable, "-S", str(self.seat_dir / "bot" / "main.py")]
            env = {**SANDBOX_ENV, "PYTHONPATH": str(sdk_dir), "HOME": str(self.seat_dir)}
            cwd = str(self.seat_dir / "bot")
        limits = self.config.rlimits()
        if uid is None and self.sandbox == "none":  # NPROC would count the worker's own processes
            limits = [(k, v) for k, v in limits if k != resource.RLIMIT_NPROC]
        self._res.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, env=env,
            cwd=cwd, start_new_session=True, close_fds=True, preexec_fn=limiter(limits),
            user=uid, group=uid, extra_groups=[] if uid is not None else None,
        )
        for pipe in (self._res.proc.stdin, self._res.proc.stdout):
            assert pipe is not None
            os.set_blocking(pipe.fileno(), False)
        assert self._res.proc.stderr is not None
        thread = threading.Thread(target=self._log.drain, args=(self._res.proc.stderr.fileno(),),
                                  name=f"ludus-stderr-{self._res.proc.pid}", daemon=True)
        thread.start()
        self._res.stderr_thread = thread

    def _die(self, why: str, cause: str) -> None:
        count_sandbox_kill(cause)
        self._dead = why
        self._log.note(why)
        self._res.kill()

    def _close_stdin(self) -> None:
        proc = self._res.proc
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()

    def _wait_exit(self, deadline: float) -> None:
        proc = self._res.proc
        assert proc is not None
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass

    # --- pipes -------------------------------------------------------------------------------------------------

    def _send(self, data: bytes, deadline: float) -> bool:
        """Write all of data before deadline. False on timeout; SeatDied when the bot closed its stdin."""
        proc = self._res.proc
        assert proc is not None and proc.stdin is not None
        fd = proc.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                self._die("the bot exited", "exited")
                raise SeatDied("the bot exited") from None
            if not _wait(fd, select.POLLOUT, deadline):
                return False
        return True

    def _read_line(self, deadline: float) -> bytes | protocol.ProtocolFault | None:
        """The next stdout line; a ProtocolFault('too_long') for an overlong one; None at the deadline."""
        proc = self._res.proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            found = self._take_line()
            if found is not None:
                return found
            if not _wait(fd, select.POLLIN, deadline):
                return None
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                self._die("the bot closed its stdout or exited", "exited")
                raise SeatDied("the bot exited")
            self._buf += chunk

    def _take_line(self) -> bytes | protocol.ProtocolFault | None:
        """Cut one complete line off the buffer, keeping at most MAX_LINE bytes of an unfinished one."""
        newline = self._buf.find(b"\n", self._scanned)
        if self._discarding:
            if newline < 0:
                self._buf.clear()
                self._scanned = 0
                return None
            del self._buf[: newline + 1]
            self._scanned, self._discarding = 0, False
            return self._take_line()
        if newline >= 0:
            line = bytes(self._buf[:newline])
            del self._buf[: newline + 1]
            self._scanned = 0
            if len(line) > protocol.MAX_LINE:
                return protocol.ProtocolFault("too_long", f"a line of {len(line)} bytes exceeds {protocol.MAX_LINE}")
            return line
        self._scanned = len(self._buf)
        if len(self._buf) > protocol.MAX_LINE:
            self._buf.clear()
            self._scanned, self._discarding = 0, True
            return protocol.ProtocolFault("too_long", f"a line exceeds {protocol.MAX_LINE} bytes")
        return None


def _wait(fd: int, event: int, deadline: float) -> bool:
    """Wait until fd is ready for event (or hung up) or the deadline passes; True when ready."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(math.ceil(remaining * 1000)))


def sandbox_kind(sandbox: str | None) -> str:
    """The sandbox to use: the argument, else LUDUS_SANDBOX, else bwrap. Raises ValueError for anything else."""
    kind = sandbox if sandbox is not None else os.environ.get("LUDUS_SANDBOX", "bwrap")
    if kind not in SANDBOX_KINDS:
        raise ValueError(f"LUDUS_SANDBOX must be one of {', '.join(SANDBOX_KINDS)}, got {kind!r}")
    return kind


def make_sandboxed_seat(bot_version: Any, seat: Any, match: Any, sandbox: str | None = None,
                        config: SandboxConfig | None = None) -> SandboxedSeat:
    """The SeatPlayer for an uploaded bot version (anything with .source bytes, .filename and .id)."""
    source = bytes(bot_version.source)
    label = f"bv{getattr(bot_version, 'id', 'x')}-m{getattr(match, 'id', 'x')}"
    return SandboxedSeat(source, str(bot_version.filename), config, sandbox_kind(sandbox), label)
