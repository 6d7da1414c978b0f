"""Uploaded bots as sandboxed processes: one bubblewrap sandbox per seat, spoken to in JSON lines
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

`make_sandboxed_seat(bot_version, match_id)` is what the match runner calls. It returns a `SandboxedSeat`, a
`workers.seats.SeatPlayer`: the bot's files are unpacked into a private temp dir, the process starts under `bwrap`
(with a seccomp filter) as an unprivileged uid of its own (when the worker runs as root), in a control group of its
own (cgroups.py) and with rlimits, and every decision is a `decide` line answered by one reply line within
`move_ms + bank_ms`. A seat boots until it read its hello, then is frozen until its turn; after a reply it waits
unfrozen, asleep on its stdin, watched before every decision and every WATCH_MS of another's move, and one caught
computing off its turn is frozen whenever it waits from then on (docs/bots.md, "The freezer"): no seat computes on
another's clock beyond that bound.
Nothing outlives `finish()`: the processes, the group, the temp dir, the pipes and the uid are all given back.

`LUDUS_SANDBOX=none` runs uploaded code without bwrap (still with its group, rlimits and its own uid). It exists for
development machines without user namespaces; production settings must refuse it unless DEBUG is on.
"""

from __future__ import annotations

import array
import fcntl
import functools
import hashlib
import math
import os
import resource
import select
import shutil
import stat
import subprocess
import tempfile
import termios
import threading
import time
import weakref
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import orjson

from engine import protocol
from engine.core import Decision
from workers.bot_files import BadBotSource, unpack_bot, write_file
from workers.metrics import count_sandbox_kill
from workers.sandbox.bwrap import (
    SANDBOX_ENV,
    SDK_DIR,
    SandboxUnavailable,
    UidLease,
    bwrap_command,
    default_lock_dir,
    find_interpreter,
    pids_of_uid,
    self_test,
    spawn,
)
from workers.sandbox.cgroups import Limits
from workers.sandbox.seat_host import CGROUP_MODES, CgroupMode, SeatHost, cgroup_host, prepare_worker
from workers.sandbox.seat_log import StderrLog
from workers.sandbox.seccomp import SeccompUnavailable, bpf_path
from workers.sandbox.warm_pool import POOL, idle_seconds, warm_seats
from workers.seats import Reply, SeatDied, Waiter, check_waiting, waiting

__all__ = [
    "BadBotSource", "SandboxConfig", "SandboxUnavailable", "SandboxedSeat", "make_sandboxed_seat",
    "pids_of_uid", "prepare_worker", "sandbox_kind", "unpack_bot",
]

SANDBOX_KINDS = ("bwrap", "none")
SDK_SOURCE = Path(__file__).resolve().parents[2] / "engine" / "sdk.py"
_CHUNK = 1 << 16
MAX_PATCH_OPS = 64  # a patch with more operations than this is sent as the whole view
MiB = 1 << 20
# A seat that waits unfrozen and whose group used more CPU than this since its wait began computes off its turn. An
# honest bot, asleep on its stdin, uses none; see docs/bots.md, "The freezer".
OFF_TURN_NS = 1_000_000
# While the worker waits for one seat's reply (or to write its decide line), the seats that wait unfrozen are looked at
# this often (_watch_until): a seat computing off its turn takes about this much of another's long move (plus
# OFF_TURN_NS and the counter's lag) before it is frozen. Over two ticks (4 ms at 250 Hz), so that a look sees a
# spinning seat's counter move. A wake-up costs the worker 50 to 80 us of CPU on the 2-core VM (a timed-out poll, and a
# counter read per waiting seat): under 1 % of a long move at 10 ms, against 3 % at 1 ms. A reply within 10 ms (nearly
# all of them) costs nothing more: the same one poll as before.
WATCH_MS = 10
# At most this much of the time the looks take in one decide is the worker's (the seat's deadline moves on by it, its ms
# leaves it out); the rest is the deciding seat's. Ordinary looks take microseconds (a counter read per waiting seat, 2
# to 5 us; freezing a caught one, a freezer write), a look delayed on a busy host some milliseconds: 50 ms covers them
# many times over, so an honest seat keeps the credit of every ordinary look. A slow look is rare and can be made on
# purpose: a waiting accomplice caught and found killed for its memory takes up to 1.1 s to reap (_death_cause,
# seat_host._await_monitor), which, uncapped, it lent to the deciding seat, once per accomplice. Capped, the gift is 50
# ms a decide whatever the accomplices do; the cost, when a waiting seat is really killed during an honest seat's move,
# is the rest of that one look taken from the honest seat's bank.
LOOKS_CREDIT_S = 0.050
# The CPU a seat's group used off its turn is added to its next move's ms; more than this in one wait is an `off_turn`
# fault as well. Frozen, a group keeps 1 ms of CPU a second, and may overrun it by a scheduler tick at each freeze
# (cgroups.py, freeze); a thief caught by a look takes some 15 ms of CPU, more when the worker is woken late on
# a busy host; an honest bot uses none.
OFF_TURN_FAULT_MS = 100


@dataclass(frozen=True)
class SandboxConfig:
    """Limits of one seat's sandbox. The defaults suit a ladder match; tournaments may tighten them."""

    cpu_seconds: int = 120  # RLIMIT_CPU per process: a backstop, the clock kills a slow bot long before
    memory_bytes: int = 512 * MiB  # RLIMIT_AS per process
    max_processes: int = 16  # RLIMIT_NPROC: tasks (processes and threads) of the seat's uid
    max_open_files: int = 64  # RLIMIT_NOFILE
    max_file_bytes: int = 16 * MiB  # RLIMIT_FSIZE: the largest file a bot may write
    tmp_bytes: int = 64 * MiB  # size of the private tmpfs at /tmp
    shm_bytes: int = 1 * MiB  # size of the private tmpfs at /dev/shm (POSIX shared memory, multiprocessing)
    stderr_bytes: int = 64 * 1024  # the seat's log keeps this much: its first and its last half
    startup_ms: int = 2000  # extra allowance on the first decision for starting the interpreter; never charged
    finish_ms: int = 200  # how long a bot may take to exit on its own after `result`
    uid_base: int = 20000  # when the worker runs as root, each live seat gets its own uid in
    uid_count: int = 1000  # [uid_base, uid_base + uid_count)
    lock_dir: str = ""  # where the uid leases are held ("" picks /run/ludus-sandbox or the temp dir)
    python: str | None = None  # the interpreter (default: LUDUS_SANDBOX_PYTHON, then /usr/bin/python3)
    # The seat's control group: all its processes together.
    # Anonymous, shared, tmpfs and kernel memory; over it the seat is killed. Above one process's address space plus
    # /tmp, so that a single process that allocates too much gets a MemoryError (a traceback for its author) first.
    group_memory_bytes: int = 640 * MiB
    group_processes: int = 32  # pids.max: processes and threads (bwrap's two included)
    cpu_cores: float = 1.0  # CPU quota while the seat computes
    cgroups: CgroupMode = "required"  # "optional": use them where the host has them; "off": never (benchmarks)
    seccomp: bool = True

    def rlimits(self) -> list[tuple[int, int]]:
        return [
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_NPROC, self.max_processes),
            (resource.RLIMIT_NOFILE, self.max_open_files),
            (resource.RLIMIT_FSIZE, self.max_file_bytes),
            (resource.RLIMIT_CORE, 0),
        ]

    def group_limits(self) -> Limits:
        return Limits(self.group_memory_bytes, self.group_processes, self.cpu_cores)


def encode_line(message: dict[str, Any]) -> bytes:
    """protocol.encode, by orjson: the same bytes for the plain JSON of views, in a tenth of the time (20 us a
    decide in the standard library). Anything orjson refuses (a key that is not a string, an integer over 64 bits)
    or a line over MAX_LINE goes to protocol.encode, which converts it or words the error. Views never hold NaN,
    which orjson would write as null where protocol.encode refuses it."""
    try:
        data = orjson.dumps(message)
    except TypeError:
        return protocol.encode(message)
    if len(data) > protocol.MAX_LINE:
        return protocol.encode(message)
    return data + b"\n"


# --- the seat -----------------------------------------------------------------------------------------------------


class SandboxedSeat:
    """An uploaded bot in its own sandboxed process: a SeatPlayer (workers/seats.py)."""

    needs_view = True
    has_process = True  # settled, paused and sent its result (workers.seats)
    caught = ""  # what the freezer first caught it at, computing off its turn ("" while it never was)

    def __init__(self, source: bytes, filename: str, config: SandboxConfig | None = None,
                 sandbox: str = "bwrap") -> None:
        if sandbox not in SANDBOX_KINDS:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_KINDS)}, got {sandbox!r}")
        self.config = config or SandboxConfig()
        if self.config.cgroups not in CGROUP_MODES:
            raise ValueError(f"cgroups must be one of {', '.join(CGROUP_MODES)}, got {self.config.cgroups!r}")
        self.sandbox = sandbox
        self.source, self.filename = source, filename
        # Named at random and by nothing else: a seat reads its dir's host path in /proc/self/mountinfo, so a name
        # with its version or match in it told a validation from a real match (docs/bots.md, "What a seat can observe").
        self._res = SeatHost(Path(tempfile.mkdtemp(prefix="ludus-")))
        self._finalizer = weakref.finalize(self, self._res.close)
        self._log = StderrLog(self.config.stderr_bytes)
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already searched for a newline
        self._discarding = False  # inside a line that was too long: drop bytes up to its newline
        self._poller: select.poll | None = None  # stdout readable, or stdin's readers gone (_wait_reply)
        self._write_poller: select.poll | None = None  # stdin writable (_send, when a decide line fills the pipe)
        self._dead: str | None = None  # why the process is gone, in words: a died fault's detail
        self._dead_code = "died"
        self._first = True
        self._cpu_ns = 0  # the group's CPU time at the end of the seat's last move
        self._frozen = False
        self._replied: int | None = None  # the seq of its last reply (None: it has not replied since it booted)
        self._reply_ns = 0  # the group's CPU ns read as its last reply came in (_cpu_ms): where its next wait begins
        self._strict = False  # it computed off its turn once: frozen whenever it waits, from then on
        self._watched: weakref.WeakSet[Waiter] | None = None  # the waiting() set it is in while it waits unfrozen
        self._finish_deadline: float | None = None
        self._next_look = 0.0  # when the seats that wait unfrozen are next looked at during this seat's move
        self._looks_s = 0.0  # the time those looks took during this seat's move: the worker's (up to LOOKS_CREDIT_S)
        self.move_ms = 1000  # the soft limit per decision, taken from hello's clock
        self._views = "full"  # what the bot asked for in its hello (protocol 2): "patch", or whole views
        self._sent: dict[str, Any] | None = None  # the view of the last decide, the base of the next patch
        # Warm seats (LUDUS_WARM_SEATS): after its match, a seat whose bot said it plays on waits, frozen, in the pool
        # for its bot version's next match.
        self.pool_key: tuple[Any, ...] | None = None
        self.parkable = True  # not a validation's seat (make_sandboxed_seat)
        self._matches = 0  # hellos sent: the epoch of the current match, which a warm seat's answer names
        self._answer_due: int | None = None  # a woken seat's epoch, until its answer to the hello is read
        self._reusable = False  # the bot's hello said "reuse": true
        self._history: bool | None = None  # it asked for its events (protocol 3); None: its hello is not read yet
        self._events: list[Any] = []  # its seat's events not yet sent (play.py hands them on as they happen)
        self._context: dict[str, Any] | None = None  # its seat's State.seat_context at the decision to come
        self._parking = False  # the result was sent without closing stdin: finish parks the seat
        self._parked = False

    # --- SeatPlayer --------------------------------------------------------------------------------------------

    @property
    def seat_dir(self) -> Path:
        """The host temp dir holding this seat's files (its bot is at seat_dir/bot)."""
        return self._res.seat_dir

    @property
    def uid(self) -> int | None:
        return self._res.lease.uid if self._res.lease and os.geteuid() == 0 else None

    @property
    def pid(self) -> int | None:
        return self._res.proc.pid if self._res.proc else None

    @property
    def alive(self) -> bool:
        proc = self._res.proc
        return self._dead is None and proc is not None and proc.poll() is None

    @property
    def group(self) -> Any:
        """The seat's SeatGroup, or None when it runs without one."""
        return self._res.group

    def start(self, hello: dict[str, Any]) -> None:
        """Unpack the bot, start its sandbox and send hello; the bot boots meanwhile. A broken upload or a failed
        start raises SeatDied; a host that cannot sandbox raises SandboxUnavailable."""
        self.move_ms = int(hello.get("clock", {}).get("move_ms", self.move_ms))
        self._matches += 1
        if self.pool_key is not None:
            hello = {**hello, "reuse": True, "epoch": self._matches}
        if self._res.proc is not None:
            self._wake(hello)
            return
        try:
            self._spawn()
        except BadBotSource as exc:
            self._die(f"bad upload: {exc}", "bad_upload")
            raise SeatDied(str(exc)) from None
        if not self._send(protocol.encode(hello), time.monotonic() + self.config.startup_ms / 1000):
            self._die("the bot did not read its hello", "no_hello")
            raise SeatDied("the bot did not read its hello")

    def _wake(self, hello: dict[str, Any]) -> None:
        """A warm seat's next match: fresh buffers and log, then thaw it and send the hello it waits for; its answer,
        a hello with this match's epoch, is read as it settles, all seats booting together (_hear_answer). What it
        wrote after its last result belongs to no match: on stdout, every line before that answer is dropped; on
        stderr, everything before this match's first decision (the log skips it until then: the seat is frozen from
        settle to that decision, so the cut is exact)."""
        self._parked = self._parking = False
        self._log.reset()
        self._buf.clear()
        self._scanned, self._discarding = 0, False
        self._sent, self._first, self._finish_deadline = None, False, None
        self._replied = None  # it boots on its hello first: frozen at settle, as a new seat is
        self._history, self._events = None, []
        self._resume()
        if not self._send(protocol.encode(hello), time.monotonic() + self.config.startup_ms / 1000):
            self._die("the bot did not read its hello", "no_hello")
            raise SeatDied("the bot did not read its hello")
        self._answer_due = hello["epoch"]

    def _hear_answer(self, deadline: float) -> None:
        """A woken seat, before anything else of its match: read its answer to the hello (_wake), dropping the lines
        before it. One that gives none by deadline is stopped: its first decision raises SeatDied."""
        epoch, self._answer_due = self._answer_due, None
        if epoch is None or self._dead is not None:
            return
        try:
            if not self._answered(epoch, deadline):
                self._die(f"the bot did not answer its hello (epoch {epoch}) in time", "no_hello")
        except SeatDied:
            pass  # it closed its stdout: stopped, and said why

    def _answered(self, epoch: int, deadline: float) -> bool:
        """Read stdout until the bot's hello naming epoch (True), dropping every line before it; False at the
        deadline."""
        dropped = 0
        while (line := self._read_line(deadline)) is not None:
            if isinstance(line, bytes) and _answers(line, epoch):
                self._take_hello(_hello_wishes(line))  # its views, reuse and history, as a new seat's hello gives them
                if dropped:
                    self._log.note(f"dropped {dropped} line(s) it wrote to stdout after its last match's result")
                return True
            dropped += 1
        return False

    def settle(self, deadline: float) -> None:
        """Let the bot boot until it has read its hello (or the deadline), then freeze it until its turn."""
        self._hear_answer(deadline)
        proc = self._res.proc
        if proc is None or proc.stdin is None or self._dead is not None:
            return
        waiting = array.array("i", [1])
        while time.monotonic() < deadline and proc.poll() is None:
            fcntl.ioctl(proc.stdin.fileno(), termios.FIONREAD, waiting)  # bytes not yet read by the bot
            if waiting[0] == 0:
                break
            time.sleep(0.002)
        self.pause()

    def pause(self) -> None:
        """Another seat holds the decision now (workers.seats.hand_turn). A seat that replied waits unfrozen, asleep on
        its stdin, and is checked at decisions (check_waiting); one that has not replied yet (booting), or that
        computed off its turn, is frozen. A seat whose processes went over the memory limit is killed here (v1 has
        no oom.group: the kernel killed one process only); one that waits, and does not compute, allocates nothing."""
        group = self._res.group
        if group is None or group.removed or self._frozen or self._dead is not None or self._watched is not None:
            return
        if self._strict or self._replied is None:
            self._freeze()
            return
        self._watched = waiting()
        self._watched.add(self)
        if group.oom_kills():
            self._died("")

    def check_waiting(self) -> None:
        """At a decision of another seat (workers.seats.check_waiting: at most every CHECK_S)."""
        self._check_cpu()

    def _off_turn_ms(self) -> int:
        """The CPU milliseconds the seat's group used since its last reply: while it waited, watched or frozen (a
        frozen task inside a kernel call runs on until the call returns). 0 before its first reply of a match."""
        group = self._res.group
        if group is None or group.removed or self._replied is None:
            return 0
        return max(0, group.cpu_ns() - self._reply_ns) // 1_000_000

    def _check_cpu(self) -> None:
        """Lazy freezing: a waiting seat whose group used more than OFF_TURN_NS of CPU since its wait began computes
        off its turn. It is frozen at once and at every hand-off for the rest of its process; its log says so, and
        what it used is charged to its next move's cpu_ms."""
        group = self._res.group
        if group is None or group.removed or self._dead is not None or self._watched is None:
            self._stop_waiting()
            return
        used = group.cpu_ns() - self._reply_ns  # its wait began at its reply
        if used > OFF_TURN_NS:
            self._strict = True
            self._freeze()
            what = (f"used {used // 1_000_000} ms of CPU after its reply to decision {self._replied}, while another "
                    "seat held the decision")
            self.caught = self.caught or what
            self._log.note(f"{what}: frozen whenever it waits, from now on")

    def _stop_waiting(self) -> None:
        if self._watched is not None:
            self._watched.discard(self)
            self._watched = None

    def _freeze(self) -> None:
        group = self._res.group
        if group is None or group.removed or self._frozen:
            return
        self._stop_waiting()
        group.freeze()
        self._frozen = True
        if self._dead is None and group.oom_kills():
            self._died("")

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        """Send decide seq and wait for one reply line until move_ms + bank_ms. Raises SeatDied if the bot is gone."""
        self._hear_answer(time.monotonic() + self.config.startup_ms / 1000)  # a woken seat that did not settle
        if self._dead is not None:
            raise SeatDied(self._dead, self._dead_code)
        off_ms = self._off_turn_ms()
        if self._watched is not None:  # its wait ends: what it used since the wait began was off its turn
            self._check_cpu()
            self._stop_waiting()
        check_waiting()
        clock = {"move_ms": self.move_ms, "bank_ms": bank_ms}
        allowance = self.config.startup_ms if self._first else 0
        self._first = False
        line_out = encode_line(self._decide_message(seq, view, decision, clock))  # the engine's time
        self._log.mark(seq)
        self._resume()  # before the line: writing it into a frozen seat's pipe, then thawing, measured 1.4x slower
        t0 = time.monotonic()
        deadline = t0 + (allowance + clock["move_ms"] + bank_ms) / 1000
        self._next_look, self._looks_s = t0 + WATCH_MS / 1000, 0.0  # the look at its start was check_waiting() above
        sent = self._send(line_out, deadline, watch=True)
        line = self._reply_line(deadline) if sent else None
        ms = max(0, int((time.monotonic() - t0 - min(self._looks_s, LOOKS_CREDIT_S)) * 1000) - allowance)
        ms += off_ms  # the CPU its group used off its turn is its own time (docs/bots.md, "The freezer")
        cpu_ms = self._cpu_ms()
        self._replied = seq
        if line is None:
            limit = clock["move_ms"] + bank_ms
            self._die(f"decision {seq}: no reply within {limit} ms; killed", "timeout",
                      f"killed by the sandbox when decision {seq} timed out")
            return Reply(choice=0, ms=ms, fault="timeout", detail=f"no reply within {limit} ms", cpu_ms=cpu_ms)
        if isinstance(line, protocol.ProtocolFault):
            return Reply(choice=0, ms=ms, fault=line.code, detail=str(line), cpu_ms=cpu_ms)
        if off_ms > OFF_TURN_FAULT_MS:
            return Reply(choice=0, ms=ms, fault="off_turn", cpu_ms=cpu_ms,
                         detail=f"its processes used {off_ms} ms of CPU while another seat held the decision")
        try:
            return Reply(choice=protocol.parse_reply(line, seq, len(decision.options)), ms=ms, cpu_ms=cpu_ms)
        except protocol.ProtocolFault as fault:
            return Reply(choice=0, ms=ms, fault=fault.code, detail=str(fault), cpu_ms=cpu_ms)

    @property
    def wants_events(self) -> bool:
        """Whether the match loop should hand this seat its events (add_events): until its hello is read, and then
        if it asked for them."""
        return self._history is not False

    def add_events(self, events: list[Any]) -> None:
        """Its seat's events (Game.seat_events), to go out with its next decide."""
        self._events += events

    def set_context(self, context: dict[str, Any]) -> None:
        """Its seat's State.seat_context at the decision it is about to be asked, for Game.determinize."""
        self._context = context

    def _decide_message(self, seq: int, view: dict[str, Any] | None, decision: Decision,
                        clock: dict[str, int]) -> dict[str, Any]:
        """The decide message: with what changed since the last view when the bot asked for patches (and the patch
        is small), else with the whole view; with its events since the last decide when it asked for them."""
        patch = None
        if self._views == "patch" and self._sent is not None and view is not None:
            patch = protocol.view_patch(self._sent, view)
            if len(patch) > MAX_PATCH_OPS:
                patch = None
        self._sent = view
        if self._history is None:
            self._early_hello()
        events = context = None
        if self._history:
            events, self._events, context = self._events, [], self._context
        return protocol.decide(seq, view, decision, clock, patch, events, context)

    def _early_hello(self) -> None:
        """Before its first reply: take the bot's hello now if it is written already (the SDK writes it as it reads
        the engine's), so that this decide carries the events it asks for. Any other line is left for the reply."""
        proc = self._res.proc
        if proc is None or proc.stdout is None or self._discarding:
            return
        try:
            self._buf += os.read(proc.stdout.fileno(), _CHUNK)  # an end of file is seen again by the reply's read
        except (BlockingIOError, OSError):
            return
        newline = self._buf.find(b"\n")
        try:
            asked = protocol.bot_hello(bytes(self._buf[:newline])) if newline >= 0 else None
        except protocol.ProtocolFault:
            return  # the reply's read finds it again, and words the fault
        if asked is not None:
            del self._buf[: newline + 1]
            self._scanned = 0
            self._take_hello(asked)

    def _take_hello(self, asked: dict[str, Any]) -> None:
        self._views, self._reusable = str(asked["views"]), bool(asked["reuse"])
        self._history = bool(asked.get("history"))
        if not self._history:
            self._events = []

    def _reply_line(self, deadline: float) -> bytes | protocol.ProtocolFault | None:
        """The bot's next line that is not its hello; a hello (protocol 2, before its first reply) sets the views."""
        while isinstance(line := self._read_line(deadline), bytes):
            try:
                views = protocol.bot_hello(line)
            except protocol.ProtocolFault as fault:
                return fault
            if views is None:
                if self._history is None:  # no hello before its first reply: it never asks for its events
                    self._history, self._events = False, []
                return line
            self._take_hello(views)
        return line

    def send_result(self, outcome: dict[str, Any]) -> None:
        """The first half of finish: thaw, send result and close stdin, so that all seats can exit together."""
        if self._finish_deadline is not None:
            return
        self._stop_waiting()
        self._finish_deadline = time.monotonic() + self.config.finish_ms / 1000
        message = outcome if outcome.get("type") == "result" else protocol.result(outcome)
        if self._dead is None and self._res.proc is not None:
            self._parking = self._can_park()
            self._resume()
            try:
                if self._send(protocol.encode(message), self._finish_deadline) and not self._parking:
                    self._close_stdin()
            except SeatDied:
                pass

    def _can_park(self) -> bool:
        """A warm seat (not a validation's) whose bot plays on, alive, and room in the pool (reserved here, released
        if not parked)."""
        return self.pool_key is not None and self.parkable and self._reusable and self.alive and POOL.reserve()

    def finish(self, outcome: dict[str, Any]) -> None:
        """Send result, give the bot finish_ms to exit, then kill what is left and give every resource back. A warm
        seat whose bot plays on is frozen and parked in the pool instead."""
        self.send_result(outcome)
        if self._parking:
            self._parking = False
            if self._dead is None:
                self._freeze()
            if self._dead is None:
                self._log.catch_up()  # frozen now: all it wrote this match is in the pipe, and belongs to this log
                self._parked = True
                POOL.put(self)
                return
            POOL.release()
        try:
            if self._dead is None and self._res.proc is not None and self._finish_deadline is not None:
                self._wait_exit(self._finish_deadline)
                self._log.catch_up()  # its last lines may still be in the pipe, not yet read by the log's thread
        finally:
            self.close()

    def catch_up(self, view: dict[str, Any] | None, decision: Decision, played: int) -> None:
        pass  # an uploaded bot is not walked through a branch's past (docs/branches.md)

    def log(self) -> str:
        """The seat's stderr, its head and tail kept within config.stderr_bytes, with the sandbox's own notes."""
        return self._log.text()

    def close(self) -> None:
        """Kill the sandbox and remove its files (idempotent; also run when the seat is garbage-collected). A seat
        parked in the pool stays (`retire` ends it)."""
        if self._parked:
            return
        if self._parking:  # the match ended between sending the result and parking: give the room back
            self._parking = False
            POOL.release()
        if self._dead is None and self._res.proc is not None and self._res.proc.poll() is None:
            count_sandbox_kill("stopped")  # still running: a forfeit, an aborted match, or no exit after result
        self._dead = self._dead or "closed"
        self._stop_waiting()
        self._finalizer()

    def retire(self) -> None:
        """Take a parked seat out of service: kill it and give everything back."""
        self._parked = False
        self.close()

    # --- process -----------------------------------------------------------------------------------------------

    def _spawn(self) -> None:
        unpack_bot(self.source, self.filename, self.seat_dir / "bot")
        sdk_dir = self.seat_dir / "ludus"
        sdk_dir.mkdir(mode=0o755)
        write_file(sdk_dir / "ludus.py", SDK_SOURCE.read_bytes())
        interp = find_interpreter(self.config.python)
        cached, bytecode = sdk_bytecode(interp.executable)
        (sdk_dir / "__pycache__").mkdir(mode=0o755)
        write_file(sdk_dir / "__pycache__" / cached, bytecode)
        engine = engine_copy(interp.executable)
        if self.sandbox == "none":
            (sdk_dir / "engine").symlink_to(engine)
        else:
            (sdk_dir / "engine").mkdir(mode=0o755)  # where bwrap binds the engine
        host = cgroup_host(self.config.cgroups)
        if os.geteuid() == 0 or host is not None:  # the lease names the group, and as root gives the seat its uid
            self._res.lease = UidLease(self.config.uid_base, self.config.uid_count, self.config.lock_dir, host)
        uid = self.uid
        if uid is not None:
            os.chown(self.seat_dir, uid, uid)
        os.chmod(self.seat_dir, 0o700)
        if host is not None:
            self._res.make_group(host, self.config.group_limits())
        argv, env, cwd, seccomp_file = self._command(interp, sdk_dir, uid)
        limits = self.config.rlimits()
        if uid is None and self.sandbox == "none":  # NPROC would count the worker's own processes
            limits = [(k, v) for k, v in limits if k != resource.RLIMIT_NPROC]
        group = self._res.group
        self._res.proc = spawn(argv, uid, limits, env, cwd, renumbered=self.sandbox == "bwrap",
                               seccomp_file=seccomp_file, join=group.join if group is not None else None)
        self._start_log_thread()

    def _command(self, interp: Any, sdk_dir: Path, uid: int | None) -> tuple[list[str], dict[str, str], str, str]:
        """The sandbox's argv, environment, working dir and seccomp file."""
        if self.sandbox == "none":
            argv = [interp.executable, "-S", str(self.seat_dir / "bot" / "main.py")]
            env = {**SANDBOX_ENV, "PYTHONPATH": str(sdk_dir), "HOME": str(self.seat_dir)}
            return argv, env, str(self.seat_dir / "bot"), "/dev/null"
        try:
            seccomp_file = bpf_path(self.config.lock_dir or default_lock_dir()) if self.config.seccomp else "/dev/null"
        except SeccompUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from None
        argv = bwrap_command(interp, str(self.seat_dir / "bot"), str(sdk_dir), self.config.tmp_bytes,
                             seccomp=self.config.seccomp, shm_bytes=self.config.shm_bytes,
                             engine_dir=str(engine_copy(interp.executable)))
        self_test(argv, uid, seccomp_file)
        return argv, dict(SANDBOX_ENV), "/", seccomp_file

    def _start_log_thread(self) -> None:
        proc = self._res.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        for pipe in (proc.stdin, proc.stdout):
            os.set_blocking(pipe.fileno(), False)
        thread = threading.Thread(target=self._log.drain, args=(proc.stderr.fileno(),),
                                  name=f"ludus-stderr-{proc.pid}", daemon=True)
        thread.start()
        self._res.stderr_thread = thread

    def _resume(self) -> None:
        group = self._res.group
        if self._frozen and group is not None and not group.removed:
            group.thaw()
        self._frozen = False

    def _cpu_ms(self) -> int | None:
        """The CPU milliseconds all the seat's processes used since the last reading: its own time, and what it
        used off its turn before it was caught (check_waiting)."""
        group = self._res.group
        if group is None or group.removed:
            return None
        used = self._reply_ns = group.cpu_ns()
        ms = (used - self._cpu_ns) // 1_000_000
        self._cpu_ns += ms * 1_000_000  # the part of a millisecond left counts toward the next move: sums are exact
        return int(ms)

    def _die(self, note: str, kill: str, cause: str | None = None, code: str = "died") -> None:
        """Kill the sandbox, counted by kill (workers/metrics.py); note goes to the log, cause (default: note) is what
        a later died fault says."""
        count_sandbox_kill(kill)
        self._dead, self._dead_code = cause or note, code
        self._stop_waiting()
        self._log.note(note)
        self._res.kill()

    def _died(self, what: str) -> SeatDied:
        """The process is gone (or closed its pipes): kill what is left and say why, in the died fault's words."""
        cause, code = self._death_cause(what)
        self._die(cause, "oom" if code == "oom" else "exited", code=code)
        return SeatDied(cause, code)

    def _death_cause(self, what: str) -> tuple[str, str]:
        group = self._res.group
        if group is not None and not group.removed and group.oom_kills():
            mib = self.config.group_memory_bytes >> 20
            return f"out of memory: the seat's processes went over its {mib} MiB and the kernel killed them", "oom"
        proc = self._res.proc
        assert proc is not None
        try:
            status = proc.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            return f"the bot {what} while still running", "died"
        if status > 128:  # bwrap reports a bot killed by a signal as 128 + the signal
            return f"the bot was killed by signal {status - 128}", "died"
        return f"the bot exited with status {status}", "died"

    def _close_stdin(self) -> None:
        proc = self._res.proc
        if proc is not None and proc.stdin is not None:
            self._poller = self._write_poller = None  # they poll the closed pipe
            proc.stdin.close()

    def _wait_exit(self, deadline: float) -> None:
        """Wait until the sandbox exits or the deadline passes, woken by the exit itself (a pidfd), not by polling
        as Popen.wait(timeout) does (it sleeps up to 50 ms between looks)."""
        proc = self._res.proc
        assert proc is not None
        if proc.poll() is not None:
            return
        pidfd = os.pidfd_open(proc.pid)
        try:
            if _wait(pidfd, select.POLLIN, deadline):
                proc.wait()
        finally:
            os.close(pidfd)

    # --- pipes -------------------------------------------------------------------------------------------------

    def _send(self, data: bytes, deadline: float, watch: bool = False) -> bool:
        """Write all of data before deadline. False on timeout; SeatDied when the bot closed its stdin.

        With watch (a decide line), a full pipe is waited on as the reply is (_watch_until): a bot that shrinks its
        stdin pipe and reads a long line late holds the worker here, and the seats that wait unfrozen are looked at
        meanwhile. A pipe that takes the line at once, as nearly always, costs the one write."""
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
                raise self._died("closed its stdin") from None
            if not watch:
                if not _wait(fd, select.POLLOUT, deadline):
                    return False
                continue
            if self._write_poller is None:
                self._write_poller = select.poll()
                self._write_poller.register(fd, select.POLLOUT)
            if not self._watch_until(self._write_poller, deadline):  # writable, or hung up: the write tells
                return False
        return True

    def _read_line(self, deadline: float) -> bytes | protocol.ProtocolFault | None:
        """The next stdout line; a ProtocolFault('too_long') for an overlong one; None at the deadline."""
        proc = self._res.proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            if self._buf:  # an empty buffer holds no line: straight to the wait
                found = self._take_line()
                if found is not None:
                    return found
            if not self._wait_reply(fd, deadline):
                return None
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._died("closed its stdout")
            self._buf += chunk

    def _wait_reply(self, fd: int, deadline: float) -> bool:
        """Wait for stdout to be readable (True) or the deadline (False); a stdin closed meanwhile is a death."""
        proc = self._res.proc
        assert proc is not None and proc.stdin is not None
        if self._poller is None:  # made once for the seat's pipes, not at every wait
            self._poller = select.poll()
            self._poller.register(fd, select.POLLIN)
            self._poller.register(proc.stdin.fileno(), 0)  # only POLLERR: every reader of the bot's stdin is gone
        events = self._watch_until(self._poller, deadline)
        if not events:
            return False
        for ready, _ in events:
            if ready == fd:
                return True
        raise self._died("closed its stdin")

    def _watch_until(self, poller: select.poll, deadline: float) -> list[tuple[int, int]]:
        """Poll until an event (returned) or the deadline (an empty list), looking at the waiting seats meanwhile:
        every wait of a decide goes through here, the write of its line (_send) and the wait for its reply.

        While other seats of the match wait unfrozen, they are looked at every WATCH_MS of this seat's move, not only
        at the next decision. The looks go by time (_next_look, kept across the waits of one decide), not by quiet
        polls: a deciding seat that writes a byte now and then wakes the worker and ends a wait each time, and must
        not keep the look from coming due while an accomplice computes off its turn; nor may one that reads its decide
        line late, holding the worker in the write.

        The time the looks take (freezing a caught seat, or killing one that ran out of memory and waiting for bwrap)
        is the worker's, up to LOOKS_CREDIT_S a decide: the seat's deadline moves on by it, and its move's ms leaves
        it out (decide). A waiting accomplice that makes its own look slow lends the deciding seat that much at most."""
        while True:
            now = time.monotonic()
            watched = waiting()  # seats of this match that wait unfrozen (not this one: its wait ended at its decide)
            if watched and now >= self._next_look:
                check_waiting()  # a seat that computes meanwhile is frozen (and leaves watched)
                self._looks_s += time.monotonic() - now
                now = time.monotonic()
                self._next_look = now + WATCH_MS / 1000
            end = deadline + min(self._looks_s, LOOKS_CREDIT_S)
            # Nobody to look at: one poll to the deadline, as without the watch; else until the look or the deadline.
            # Past the deadline still one poll (of 0 ms): a reply that came while the worker looked or woke late counts.
            until = min(end, self._next_look) if watched else end
            if events := poller.poll(max(0, math.ceil((until - now) * 1000))):
                return events
            if time.monotonic() >= end:
                return []

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


def _answers(line: bytes, epoch: int) -> bool:
    """Whether line is a warm seat's answer to its next match's hello: a bot hello that names this epoch, or names
    none (a raw bot written before epochs: the lines before its hello are still dropped)."""
    try:
        return protocol.bot_hello(line) is not None and orjson.loads(line).get("epoch", epoch) == epoch
    except (protocol.ProtocolFault, orjson.JSONDecodeError):
        return False


def _hello_wishes(line: bytes) -> dict[str, Any]:
    """What a bot's hello asks for: views, reuse, history (a line _answers accepted)."""
    wishes = protocol.bot_hello(line)
    assert wishes is not None
    return wishes


def _wait(fd: int, event: int, deadline: float) -> bool:
    """Wait until fd is ready for event (or hung up) or the deadline passes; True when ready."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(math.ceil(remaining * 1000)))


_COMPILE = """
import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], dfile="/ludus/ludus.py", doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
print(sys.implementation.cache_tag)
"""


@functools.lru_cache(maxsize=4)
def sdk_bytecode(executable: str) -> tuple[str, bytes]:
    """The SDK compiled once per worker process by the sandbox's interpreter: its `__pycache__` file name and bytes.

    A seat's /ludus is read-only and its bots run with PYTHONDONTWRITEBYTECODE, so without this every seat compiled
    the SDK from source as it booted. An unchecked-hash .pyc is used as it is: the source beside it never changes.
    """
    with tempfile.TemporaryDirectory(prefix="ludus-sdk-") as tmp:
        target = Path(tmp) / "ludus.pyc"
        done = subprocess.run([executable, "-S", "-c", _COMPILE, str(SDK_SOURCE), str(target)], capture_output=True,
                              text=True, check=True, timeout=30, env=dict(SANDBOX_ENV), cwd="/")
        return f"ludus.{done.stdout.strip()}.pyc", target.read_bytes()


ENGINE_SOURCE = SDK_SOURCE.parent


@functools.lru_cache(maxsize=4)
def engine_copy(executable: str) -> Path:
    """The engine package that plays the match, copied and compiled by the sandbox's interpreter: bound read-only
    at /ludus/engine in every seat, so that a bot's `import engine` and the SDK's `sim` load exactly these rules
    (docs/bots.md, "Search bots"). Without the bytecode every seat that imports it would compile it as it boots (its
    /ludus is read-only). Named by its content and the interpreter, made whole and renamed into place, so the
    workers of a machine share it (as the seccomp filter's file); only a copy this uid owns and alone may write is
    used. World-readable: seats run as their own uids."""
    digest = hashlib.sha256(executable.encode())
    for path in sorted(ENGINE_SOURCE.rglob("*.py")):
        digest.update(str(path.relative_to(ENGINE_SOURCE)).encode() + b"\0" + path.read_bytes())
    root = Path(tempfile.gettempdir()) / f"ludus-engine-{os.geteuid()}-{digest.hexdigest()[:16]}"
    if not _is_own_dir(root):
        build = Path(tempfile.mkdtemp(prefix=".ludus-engine-"))
        shutil.copytree(ENGINE_SOURCE, build / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        subprocess.run([executable, "-S", "-m", "compileall", "-q", "-d", f"{SDK_DIR}/engine", "--invalidation-mode",
                        "unchecked-hash", str(build / "engine")], capture_output=True, check=True, timeout=120,
                       env=dict(SANDBOX_ENV), cwd="/")
        for path in (build, *build.rglob("*")):
            path.chmod(0o755 if path.is_dir() else 0o644)
        try:
            build.rename(root)
        except OSError:  # another worker made it first
            shutil.rmtree(build, ignore_errors=True)
        if not _is_own_dir(root):
            raise SandboxUnavailable(f"{root} is not a directory this worker's user alone may write")
    return root / "engine"


def _is_own_dir(path: Path) -> bool:
    try:
        found = path.lstat()
    except FileNotFoundError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & 0o022


def sandbox_kind(sandbox: str | None) -> str:
    """The sandbox to use: the argument, else settings.LUDUS_SANDBOX. Raises ValueError for anything else."""
    from django.conf import settings  # here, as in cgroup_mode: the sandbox also runs without a configured project

    configured = settings.LUDUS_SANDBOX if settings.configured else "bwrap"
    kind = sandbox if sandbox is not None else configured
    if kind not in SANDBOX_KINDS:
        raise ValueError(f"LUDUS_SANDBOX must be one of {', '.join(SANDBOX_KINDS)}, got {kind!r}")
    return kind


def cgroup_mode() -> CgroupMode:
    """required, or optional when the operator opted out (LUDUS_SANDBOX_WITHOUT_CGROUPS, read by the settings)."""
    from django.conf import settings

    if settings.configured and getattr(settings, "LUDUS_SANDBOX_WITHOUT_CGROUPS", False):
        return "optional"
    return "required"


def _affinity() -> frozenset[int] | None:
    """The calling thread's CPUs, which a seat spawned now keeps for its life (pinning.py; the seccomp filter
    forbids it to change them): part of a warm seat's key, so that it is reused only by a match pinned as its first
    was, never by one pinned to another CPU or unpinned, where it would run on a CPU another match leased. None where
    the platform has no affinity."""
    return frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


class BotFiles(Protocol):
    """What the sandbox needs of a bot version (a tournaments.models.BotVersion has it)."""

    @property
    def id(self) -> int | None: ...
    @property
    def source(self) -> bytes | memoryview: ...
    @property
    def filename(self) -> str: ...
    @property
    def sha256(self) -> str: ...


def make_sandboxed_seat(bot: BotFiles, match_id: int | None, sandbox: str | None = None,
                        config: SandboxConfig | None = None) -> SandboxedSeat:
    """The SeatPlayer for an uploaded bot version in a match (None: a validation's smoke match); with warm seats on,
    a parked seat of the same version when there is one (never for a validation)."""
    kind = sandbox_kind(sandbox)
    config = config or replace(SandboxConfig(), cgroups=cgroup_mode())
    key = None
    if warm_seats():
        idle_seconds()  # a bad setting is refused here, at the match, not later in the pool's sweeper
        key = (bot.id, bot.sha256, kind, config, _affinity())
        if match_id is not None and (parked := POOL.take(key)) is not None:
            assert isinstance(parked, SandboxedSeat)
            return parked
    player = SandboxedSeat(bytes(bot.source), bot.filename, config, kind)
    player.pool_key = key
    # A validation's seat is offered reuse as a match's is (its hello must read the same), but never parked: its
    # version's matches are played by fresh processes, so none of them remembers its validation.
    player.parkable = match_id is not None
    return player
