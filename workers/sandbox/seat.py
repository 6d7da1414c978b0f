"""Uploaded bots as sandboxed processes: one bubblewrap sandbox per seat, spoken to in JSON lines
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

`seat_for(bot_version, match_id, kind, config)` is what the match runner calls (through
workers/sandbox_settings.py, which reads the settings). It returns a `SandboxedSeat`, a
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

import os
import resource
import select
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import orjson

from engine import protocol
from engine.core import Decision
from tournaments.languages import PYTHON, Manifest
from workers.metrics import count_sandbox_kill
from workers.sandbox.build import manifest_for, unpack_artifact
from workers.sandbox.bwrap import (
    BOT_DIR,
    SANDBOX_ENV,
    SandboxUnavailable,
    UidLease,
    bwrap_command,
    find_interpreter,
    self_test,
    spawn,
)
from workers.sandbox.config import SANDBOX_KINDS, SandboxConfig
from workers.sandbox.freezer import Freezer
from workers.sandbox.languages import RUN_LIMITS, RunLimits, runtime_for
from workers.sandbox.leases import default_lock_dir
from workers.sandbox.pipes import PipeClosed, SeatPipes, encode_line, wait_fd
from workers.sandbox.seat_host import CGROUP_MODES, SeatHost, cgroup_host
from workers.sandbox.seat_log import StderrLog
from workers.sandbox.seccomp import SeccompUnavailable, bpf_path
from workers.sandbox.unpacking import SDK_SOURCE, BadBotSource, engine_copy, sdk_bytecode, unpack_bot, write_file
from workers.sandbox.warm_pool import NO_WARM_SEATS, POOL, WarmSeats
from workers.seats import Reply, SeatDied, check_waiting

MAX_PATCH_OPS = 64  # a patch with more operations than this is sent as the whole view
# The CPU a seat's group used off its turn is added to its next move's ms; more than this in one wait is an `off_turn`
# fault as well. Frozen, a group keeps 1 ms of CPU a second, and may overrun it by a scheduler tick at each freeze
# (cgroups.py, freeze); a thief caught by a look takes some 15 ms of CPU, more when the worker is woken late on
# a busy host; an honest bot uses none.
OFF_TURN_FAULT_MS = 100


# --- the seat -----------------------------------------------------------------------------------------------------


class SandboxedSeat(Freezer):
    """An uploaded bot in its own sandboxed process: a SeatPlayer (workers/seats.py)."""

    needs_view = True
    has_process = True  # settled, paused and sent its result (workers.seats)
    unbuilt = ""  # why a compiled bot has no artifact (workers/sandbox_settings.py): its start dies saying so

    def __init__(self, source: bytes, filename: str, config: SandboxConfig | None = None,
                 sandbox: str = "bwrap", manifest: Manifest = PYTHON, artifact: bytes = b"") -> None:
        if sandbox not in SANDBOX_KINDS:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_KINDS)}, got {sandbox!r}")
        # Another language's runtime may start slower and reserve more address space (workers/sandbox/languages.py).
        limits = RUN_LIMITS.get(manifest.language, RunLimits())
        config = config or SandboxConfig()
        self.config = replace(config, startup_ms=config.startup_ms + limits.startup_ms,
                              memory_bytes=max(config.memory_bytes, limits.address_space or 0))
        self.manifest, self.artifact = manifest, artifact
        if self.config.cgroups not in CGROUP_MODES:
            raise ValueError(f"cgroups must be one of {', '.join(CGROUP_MODES)}, got {self.config.cgroups!r}")
        super().__init__()
        self.sandbox = sandbox
        self.source, self.filename = source, filename
        # Named at random and by nothing else: a seat reads its dir's host path in /proc/self/mountinfo, so a name
        # with its version or match in it told a validation from a real match (docs/bots.md, "What a seat can observe").
        self._res = SeatHost(Path(tempfile.mkdtemp(prefix="ludus-")))
        self._finalizer = weakref.finalize(self, self._res.close)
        self._log = StderrLog(self.config.stderr_bytes)
        self._pipes = SeatPipes()  # its stdin and stdout (pipes.py)
        self._dead: str | None = None  # why the process is gone, in words: a died fault's detail
        self._dead_code = "died"
        self._first = True
        # Its runtime works by itself after a reply (RunLimits): frozen whenever it waits, from its first reply on.
        self._strict = limits.frozen_when_waiting
        self._finish_deadline: float | None = None
        self.move_ms = 1000  # the soft limit per decision, taken from hello's clock
        self._views = "full"  # what the bot asked for in its hello (protocol 2): "patch", or whole views
        # What the last decide sent, the base of the next patch: the match state's (State.seat_patch) while the seat
        # follows it (play_game), else the view handed to decide.
        self._sent: Any = None
        self._state: Any = None  # the match's state, followed (follow)
        self._number = 0  # its seat in that match
        # Warm seats (LUDUS_WARM_SEATS): after its match, a seat whose bot said it plays on waits, frozen, in the pool
        # for its bot version's next match.
        self.pool_key: tuple[Any, ...] | None = None
        self.warm: WarmSeats = NO_WARM_SEATS  # the pool's size and idle limit (seat_for)
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
        # A bot that exits before its hello is written (a crash at start, on a busy host: the pipe is closed, or the
        # write times out on a process already gone) is not forfeited here without a word: its first decision finds
        # it dead and says why, its status and stderr, as when it exits a moment after the hello.
        try:
            sent = self._send(protocol.encode(hello), time.monotonic() + self.config.startup_ms / 1000)
        except SeatDied:
            return  # _died killed what was left and noted the cause
        if not sent:
            if self._res.proc is not None and self._res.proc.poll() is not None:
                return
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
        self._pipes.lines.clear()
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
        while time.monotonic() < deadline and proc.poll() is None and self._pipes.unread():
            time.sleep(0.002)
        self.pause()

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        """Send decide seq and wait for one reply line until move_ms + bank_ms. Raises SeatDied if the bot is gone."""
        if self._answer_due is not None:  # a woken seat that did not settle
            self._hear_answer(time.monotonic() + self.config.startup_ms / 1000)
        if self._dead is not None:
            raise SeatDied(self._dead, self._dead_code)
        off_ms = self._end_wait()
        check_waiting()
        clock = {"move_ms": self.move_ms, "bank_ms": bank_ms}
        allowance = self.config.startup_ms if self._first else 0
        self._first = False
        line_out = encode_line(self._decide_message(seq, view, decision, clock))  # the engine's time
        self._log.mark(seq)
        self._resume()  # before the line: writing it into a frozen seat's pipe, then thawing, measured 1.4x slower
        t0 = time.monotonic()
        deadline = t0 + (allowance + clock["move_ms"] + bank_ms) / 1000
        self._start_looks(t0)  # the look at its start was check_waiting() above
        sent = self._send(line_out, deadline, watch=True)
        line = self._reply_line(deadline) if sent else None
        end = time.monotonic()
        ms = max(0, int((end - t0 - self._looks_credit()) * 1000) - allowance)
        ms += off_ms  # the CPU its group used off its turn is its own time (docs/bots.md, "The freezer")
        cpu_ms = self._cpu_ms(end)
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
            choice = protocol.parse_reply(line, seq, len(decision.options))
        except protocol.ProtocolFault as fault:
            return Reply(choice=0, ms=ms, fault=fault.code, detail=str(fault), cpu_ms=cpu_ms)
        return Reply(choice, ms, None, "", cpu_ms)  # nearly every decide's: by position, 0.18 us (by keyword 0.32)

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

    def follow(self, state: Any, number: int) -> None:
        """The match's state, from which this seat (number) takes its views: the game then makes each patch from
        what changed (State.seat_patch) instead of a whole view compared with the last. play_game follows it for a
        seat that has this method, and hands its decide no view."""
        self._state, self._number, self._sent = state, number, None

    def _decide_message(self, seq: int, view: dict[str, Any] | None, decision: Decision,
                        clock: dict[str, int]) -> dict[str, Any]:
        """The decide message: with what changed since the last view when the bot asked for patches (and the patch
        is small), else with the whole view; with its events since the last decide when it asked for them."""
        patch = None
        patching = self._views == "patch"
        if self._state is None:  # a view handed to decide, compared whole
            patch = protocol.patch_since(self._sent, view, MAX_PATCH_OPS) if patching and view is not None else None
            self._sent = view
        elif patching or self._sent is None:  # the first decide, before its hello may ask for patches, keeps sent
            view, patch, self._sent = self._state.seat_patch(self._number, self._sent if patching else None,
                                                             MAX_PATCH_OPS)
        else:
            view = self._state.view(self._number)
        if self._history is None:
            self._early_hello()
        events = context = None
        if self._history:
            events, self._events, context = self._events, [], self._context
        return protocol.decide(seq, view, decision, clock, patch, events, context)

    def _early_hello(self) -> None:
        """Before its first reply: take the bot's hello now if it is written already (the SDK writes it as it reads
        the engine's), so that this decide carries the events it asks for. Any other line is left for the reply."""
        line = self._pipes.first_line_now()
        try:
            asked = protocol.bot_hello(line) if line is not None else None
        except protocol.ProtocolFault:
            return  # the reply's read finds it again, and words the fault
        if asked is not None:
            self._pipes.lines.take()  # that hello
            self._take_hello(asked)

    def _take_hello(self, asked: dict[str, Any]) -> None:
        self._views, self._reusable = str(asked["views"]), bool(asked["reuse"])
        # A hello after its first reply (it has none then, docs/bots.md) cannot start its history: the match loop
        # stops handing events to a seat once it wants none (workers/play.py).
        self._history = self._history is not False and bool(asked.get("history"))
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
        self._state = None  # the match is over: a parked seat keeps no state
        self._finish_deadline = time.monotonic() + self.config.finish_ms / 1000
        message = outcome if outcome.get("type") == "result" else protocol.result(outcome)
        if self._dead is None and self._res.proc is not None:
            self._parking = self._can_park()
            self._resume()
            try:
                if self._send(protocol.encode(message), self._finish_deadline) and not self._parking:
                    self._pipes.close_stdin()
            except SeatDied:
                pass

    @property
    def is_parking(self) -> bool:
        """Its result was sent, and finish will park it in the pool (frozen) rather than wait for it to exit."""
        return self._parking

    def _can_park(self) -> bool:
        """A warm seat (not a validation's) whose bot plays on, alive, and room in the pool (reserved here, released
        if not parked)."""
        return (self.pool_key is not None and self.parkable and self._reusable and self.alive
                and POOL.reserve(self.warm.count))

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
                POOL.put(self, self.warm.idle_seconds)
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
        if self.manifest.compiled:  # the built files, never the compiler (workers/sandbox/build.py)
            if not self.artifact:
                raise BadBotSource(self.unbuilt or "it was never built")
            unpack_artifact(self.artifact, self.seat_dir / "bot", self.config.upload_limits)
        else:
            unpack_bot(self.source, self.filename, self.seat_dir / "bot", self.config.upload_limits)
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
        if self.sandbox == "bwrap" and self.config.seccomp and hasattr(os, "sched_getaffinity"):
            self._cpus = len(os.sched_getaffinity(0))  # its processes keep these: the filter refuses to widen them
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
        runtime = runtime_for(self.manifest, self.config.python)
        if self.sandbox == "none":
            program = runtime.interp.executable.replace(f"{BOT_DIR}/", f"{self.seat_dir / 'bot'}/", 1)
            argv = [program, "-S", str(self.seat_dir / "bot" / "main.py")] if runtime.language == "python" else [
                program, *runtime.flags, *runtime.args]
            env = {**SANDBOX_ENV, "PYTHONPATH": str(sdk_dir), "HOME": str(self.seat_dir)}
            return argv, env, str(self.seat_dir / "bot"), "/dev/null"
        try:
            seccomp_file = bpf_path(self.config.lock_dir or default_lock_dir()) if self.config.seccomp else "/dev/null"
        except SeccompUnavailable as exc:
            raise SandboxUnavailable(str(exc)) from None
        argvs = [bwrap_command(used.interp, str(self.seat_dir / "bot"), str(sdk_dir), self.config.tmp_bytes,
                               program=used.args, seccomp=self.config.seccomp, shm_bytes=self.config.shm_bytes,
                               engine_dir=str(engine_copy(interp.executable)), flags=used.flags)
                 for used in (runtime_for(PYTHON, self.config.python), runtime)]
        self_test(argvs[0], uid, seccomp_file)  # the host's sandbox, probed with Python whatever the bot's language
        return argvs[1], dict(SANDBOX_ENV), "/", seccomp_file

    def _start_log_thread(self) -> None:
        proc = self._res.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._pipes.attach(proc.stdin, proc.stdout)
        thread = threading.Thread(target=self._log.drain, args=(proc.stderr.fileno(),),
                                  name=f"ludus-stderr-{proc.pid}", daemon=True)
        thread.start()
        self._res.stderr_thread = thread

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

    def _wait_exit(self, deadline: float) -> None:
        """Wait until the sandbox exits or the deadline passes, woken by the exit itself (a pidfd), not by polling
        as Popen.wait(timeout) does (it sleeps up to 50 ms between looks)."""
        proc = self._res.proc
        assert proc is not None
        if proc.poll() is not None:
            return
        pidfd = os.pidfd_open(proc.pid)
        try:
            if wait_fd(pidfd, select.POLLIN, deadline):
                proc.wait()
        finally:
            os.close(pidfd)

    # --- pipes (pipes.py) -------------------------------------------------------------------------------------

    def _send(self, data: bytes, deadline: float, watch: bool = False) -> bool:
        """Write all of data before deadline (SeatPipes.send; with watch, waiting as a decide waits). False on
        timeout; SeatDied when the bot closed its stdin."""
        try:
            return self._pipes.send(data, deadline, self._watch_until if watch else None)
        except PipeClosed as closed:
            raise self._died(closed.what) from None

    def _read_line(self, deadline: float) -> bytes | protocol.ProtocolFault | None:
        """The next stdout line (SeatPipes.read_line); None at the deadline; SeatDied when the bot closed a pipe."""
        try:
            return self._pipes.read_line(deadline, self._watch_until)
        except PipeClosed as closed:
            raise self._died(closed.what) from None


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


def seat_for(bot: BotFiles, match_id: int | None, kind: str, config: SandboxConfig,
             warm: WarmSeats = NO_WARM_SEATS) -> SandboxedSeat:
    """The SeatPlayer for an uploaded bot version in a match (None: a validation's smoke match); with warm seats on,
    a parked seat of the same version when there is one (never for a validation). The worker's settings choose kind,
    config and warm (workers/sandbox_settings.py)."""
    key = None
    if warm.count:
        key = (bot.id, bot.sha256, kind, config, _affinity())
        if match_id is not None and (parked := POOL.take(key)) is not None:
            assert isinstance(parked, SandboxedSeat)
            return parked
    source = bytes(bot.source)
    try:
        manifest = manifest_for(source, bot.filename, config.upload_limits)
    except BadBotSource:
        manifest = PYTHON  # start() unpacks it again, and the seat dies saying why it cannot (bad_upload)
    player = SandboxedSeat(source, bot.filename, config, kind, manifest, bytes(getattr(bot, "artifact", b"") or b""))
    player.pool_key, player.warm = key, warm
    # A validation's seat is offered reuse as a match's is (its hello must read the same), but never parked: its
    # version's matches are played by fresh processes, so none of them remembers its validation.
    player.parkable = match_id is not None
    return player
