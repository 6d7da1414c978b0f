"""The sandboxed seat's contract and settings: which sandbox runs, uploads, the clock's kill, no leaks."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import threading
import time
import zipfile
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from testkit import wait_until

from engine.core import Decision
from workers.play import play_game
from workers.sandbox.bwrap import SandboxUnavailable, pids_of_uid, sweep_orphans
from workers.sandbox.config import SandboxConfig
from workers.sandbox.leases import default_lock_dir
from workers.sandbox.seat import SandboxedSeat
from workers.sandbox.seat_host import cgroup_host
from workers.sandbox.unpacking import BadBotSource, unpack_bot
from workers.sandbox.warm_pool import WarmSeats
from workers.sandbox_settings import make_sandboxed_seat, sandbox_config, sandbox_kind
from workers.seats import Clock, InProcessSeat, Reply, SeatDied, start_seats

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
CONFIG = SandboxConfig(startup_ms=1500)
HELLO = {"type": "hello", "protocol": 1, "game": "evolution", "rules_version": "1", "seat": 0, "players": 2,
         "options": {}, "clock": {"move_ms": 100, "bank_ms": 200}}
PICK = Decision(seat=0, kind="pick", options=["a", "b", "c"], prompt="Pick one")


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def _seat(code: str) -> SandboxedSeat:
    return SandboxedSeat(code.encode(), "main.py", CONFIG)


def _timed_decide(seat: SandboxedSeat, seq: int, bank_ms: int) -> tuple[Reply, float]:
    """The seat's reply to decision seq, and the wall milliseconds the call took: what the seat is charged (reply.ms)
    can never be more, whatever the load; how much less is a speed, measured in benchmarks/sandbox.py."""
    t0 = time.monotonic()
    reply = seat.decide(seq, {"n": seq}, PICK, bank_ms=bank_ms)
    return reply, (time.monotonic() - t0) * 1000


# --- which sandbox ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argument", "env", "kind"),
    [(None, None, "bwrap"), (None, "bwrap", "bwrap"), (None, "none", "none"), ("bwrap", "none", "bwrap"),
     ("none", None, "none")],
)
def test_it_runs_unsandboxed_only_when_explicitly_asked(
    settings: Any, argument: str | None, env: str | None, kind: str
) -> None:
    settings.LUDUS_SANDBOX = "bwrap" if env is None else env  # the setting's default, or what the operator chose
    assert sandbox_kind(argument) == kind
    version = SimpleNamespace(source=b"print(1)", filename="bot.py", id=7, sha256="")
    seat = make_sandboxed_seat(version, 3, sandbox=argument)
    assert seat.sandbox == kind
    seat.close()


@pytest.mark.parametrize("value", ["", "None", "off", "docker", "BWRAP"])
def test_it_refuses_an_unknown_sandbox_setting(settings: Any, value: str) -> None:
    settings.LUDUS_SANDBOX = value
    with pytest.raises(ValueError, match="LUDUS_SANDBOX must be one of bwrap, none"):
        sandbox_kind(None)


def test_the_unsandboxed_mode_still_plays_a_game() -> None:
    seat = make_sandboxed_seat(SimpleNamespace(source=EXAMPLE.read_bytes(), filename="bot.py", id=1, sha256=""), None,
                               sandbox="none", config=CONFIG)
    result = play_game("evolution", 2, 5, {}, [seat, InProcessSeat("random", "evolution", 1)], Clock(200, 500))
    assert result.faults == [0, 0] and not any(result.forfeited)
    assert not seat.seat_dir.exists()


# --- uploads ------------------------------------------------------------------------------------------------------

GOOD_UPLOADS = [
    ("bot.py", b"import ludus\n"),
    ("BOT.PY", b"import ludus\n"),
    ("bot.zip", _zip({"main.py": b"x = 1\n", "lib/util.py": b"y = 2\n"})),
    ("bot.zip", _zip({"folder/main.py": b"x = 1\n", "folder/data.json": b"{}"})),
]
BAD_UPLOADS = [
    ("bot.txt", b"print(1)", "a .py file or a .zip"),
    ("bot.zip", b"not a zip", "not a valid zip file"),
    ("bot.zip", _zip({"bot.py": b"x"}), "no main.py"),
    ("bot.zip", _zip({"main.py": b"x", "../escape.py": b"x"}), "climbs out of the archive"),
    ("bot.zip", _zip({"main.py": b"x", "/etc/cron.d/x.py": b"x"}), "is an absolute path"),
    ("bot.zip", _zip({"main.py": b"x", "big.bin": b"\0" * (17 << 20)}), "unpacks to 17825793 bytes, over the limit"),
    ("bot.zip", _zip({"main.py": b"x", **{f"f{i}.py": b"" for i in range(300)}}), "holds 301 entries"),
    ("bot.py", b"#" * (17 << 20), "over the limit"),
    ("bot.zip", _zip({"main.py": b"x", "a.py": b"x", "a.py/b.py": b"x"}), "'a.py' is both a file and a folder"),
    ("bot.zip", _zip({"main.py": b"x"})[:-30] + b"\0" * 30, "not a valid zip file"),
    ("bot.zip", _zip({"main.py": b"x", "n" * 256 + ".py": b"x"}), "a name of 259 bytes; at most 255"),
    ("bot.zip", _zip({"main.py": b"x", "/".join(["d" * 200] * 6) + "/x.py": b"x"}), "at most 1024"),
]


@pytest.mark.parametrize(("filename", "source"), GOOD_UPLOADS)
def test_it_accepts_a_py_file_or_a_zip_with_main_py(filename: str, source: bytes, tmp_path: Path) -> None:
    unpack_bot(source, filename, tmp_path / "bot", sandbox_config().upload_limits)
    assert (tmp_path / "bot" / "main.py").is_file()


@pytest.mark.parametrize(("filename", "source", "message"), BAD_UPLOADS)
def test_it_rejects_a_bad_upload_naming_the_problem(
    filename: str, source: bytes, message: str, tmp_path: Path
) -> None:
    """The sandbox reads a stored version with the upload checker (tournaments/uploads.py) and its limits."""
    with pytest.raises(BadBotSource, match=message) as refused:
        unpack_bot(source, filename, tmp_path / "bot", sandbox_config().upload_limits)
    assert "/tmp" not in str(refused.value) and "ludus-" not in str(refused.value)  # no host path in the message


# --- the seat contract --------------------------------------------------------------------------------------------


def test_a_timeout_kills_the_sandbox_at_once_and_the_seat_stays_dead() -> None:
    seat = _seat("import time, ludus\nludus.run(lambda view, decision: time.sleep(60))\n")
    seat.start(HELLO)
    reply, wall_ms = _timed_decide(seat, 1, bank_ms=200)
    # Charged its whole limit and no more time than passed (how soon after the limit it is killed: benchmarks/).
    assert reply.fault == "timeout" and reply.choice == 0 and 300 <= reply.ms <= wall_ms
    if seat.uid is not None:
        assert pids_of_uid(seat.uid) == []  # killed at the timeout, not at the end of the match
    with pytest.raises(SeatDied, match="^killed by the sandbox when decision 1 timed out$"):  # its own cause
        seat.decide(2, {}, PICK, bank_ms=0)
    seat.finish({"type": "result", "outcome": {}})
    assert "no reply within 300 ms; killed" in seat.log()


@pytest.mark.parametrize(("code", "cause"), [("import sys\nsys.exit(3)\n", "the bot exited with status 3"),
                                             ("import ctypes\nctypes.string_at(0)\n",
                                              "the bot was killed by signal 11")])
def test_a_died_fault_names_the_cause_of_the_death(code: str, cause: str) -> None:
    seat = _seat("import sys\nsys.stdin.readline()\n" + code)
    seat.start(HELLO)
    with pytest.raises(SeatDied, match=f"^{cause}$") as died:
        seat.decide(1, {}, PICK, bank_ms=200)
    assert died.value.code == "died"
    with pytest.raises(SeatDied, match=f"^{cause}$"):  # the same cause at every later decision
        seat.decide(2, {}, PICK, bank_ms=200)
    seat.finish({"type": "result", "outcome": {}})


def test_a_bot_gone_before_its_hello_is_written_dies_at_its_first_decision_saying_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash at start that beats the hello (a busy host): the pipe is closed when the hello is written. The seat is
    not dropped at start with no fault; its first decision raises the died fault, with the status, as any crash."""
    spawn = SandboxedSeat._spawn

    def spawn_and_let_it_exit(seat: SandboxedSeat) -> None:
        spawn(seat)
        proc = seat._res.proc
        assert proc is not None
        assert proc.wait(timeout=60) == 3  # gone, with its stdin, before the hello is written

    monkeypatch.setattr(SandboxedSeat, "_spawn", spawn_and_let_it_exit)
    seat = _seat("import sys\nsys.exit(3)\n")
    started = start_seats([seat], [HELLO])
    assert started == [True]
    with pytest.raises(SeatDied, match="^the bot exited with status 3$") as died:
        seat.decide(1, {}, PICK, bank_ms=200)
    assert died.value.code == "died"
    seat.finish({"type": "result", "outcome": {}})


def test_it_answers_and_charges_only_the_bots_time() -> None:
    seat = _seat("import time, ludus\nludus.run(lambda view, decision: time.sleep(0.05) or 2)\n")
    seat.start(HELLO)
    timed = [_timed_decide(seat, seq, bank_ms=200) for seq in (1, 2, 3)]
    assert [r.choice for r, _ in timed] == [2, 2, 2] and all(r.fault is None for r, _ in timed)
    # At least its 50 ms of sleep, at most the time that passed (the worker's overhead on top: benchmarks/).
    assert all(50 <= r.ms <= wall_ms for r, wall_ms in timed[1:]), timed
    seat.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
    assert not seat.seat_dir.exists()


def test_it_sends_the_documented_messages() -> None:
    seat = _seat(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    sys.stderr.write(line)\n"
        "    if '\"decide\"' in line: print('{\"seq\":1,\"choice\":1}', flush=True)\n"
    )
    seat.start(HELLO)
    assert seat.decide(1, {"you": 0}, PICK, bank_ms=150).choice == 1
    seat.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
    lines = [json.loads(line) for line in seat.log().splitlines() if line.startswith("{")]
    assert lines == [
        HELLO,
        {"type": "decide", "seq": 1, "view": {"you": 0},
         "decision": {"kind": "pick", "options": ["a", "b", "c"], "prompt": "Pick one"},
         "clock": {"move_ms": 100, "bank_ms": 150}},
        {"type": "result", "outcome": {"ranks": [1, 2]}},
    ]


VIEWS = [{"you": 0, "hand": ["a"], "food": 3}, {"you": 0, "hand": ["a", "b"], "food": 3},
         {"you": 0, "hand": ["b"], "food": 1, "over": True}]
HELLO_2 = {**HELLO, "protocol": 2}
# Logs each decide's keys and the view act gets, through the SDK (print goes to the seat's log).
SDK_TEE = (
    "import json, sys, ludus\n"
    "def tee():\n"
    "    for line in sys.stdin.buffer:\n"
    "        message = json.loads(line)\n"
    "        if message['type'] == 'decide': print('KEYS', ' '.join(sorted(message)))\n"
    "        yield line\n"
    "def act(view, decision):\n"
    "    print('VIEW', json.dumps(view, sort_keys=True))\n"
    "    view.clear()  # harmless: act has its own copy\n"
    "    return 1\n"
    "ludus.run(act, stdin=tee())\n"
)


def _logged(seat: SandboxedSeat, prefix: str) -> list[str]:
    return [line[len(prefix) + 1:] for line in seat.log().splitlines() if line.startswith(prefix + " ")]


def test_the_sdk_asks_for_patches_and_act_sees_every_whole_view() -> None:
    seat = _seat(SDK_TEE)
    seat.start(HELLO_2)
    replies = [seat.decide(seq, view, PICK, bank_ms=200) for seq, view in enumerate(VIEWS, 1)]
    seat.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
    assert [(r.choice, r.fault) for r in replies] == [(1, None)] * 3
    assert [json.loads(view) for view in _logged(seat, "VIEW")] == VIEWS
    keys = _logged(seat, "KEYS")  # the first decide has the whole view, the next ones patches
    assert keys == ["clock decision seq type view", "clock decision patch seq type", "clock decision patch seq type"]


@pytest.mark.parametrize(("hello", "fault"), [("", None), ('{"type":"hello","views":"full"}', None),
                                              ('{"type":"hello","views":"diff"}', "bad_shape")])
def test_a_raw_bot_gets_whole_views_unless_it_asks_for_patches(hello: str, fault: str | None) -> None:
    # With the bad hello, the last decide is answered at once by the reply already waiting in the pipe (stale_seq),
    # so the bot may still be reading it when the result comes: give it time to log it and exit, on a busy machine.
    code = (
        "import json, sys\n"
        + (f"print({hello!r}, flush=True)\n" if hello else "")
        + "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] == 'decide':\n"
        # one write a line: print's pieces go out one by one (the sandbox's Python is unbuffered), and the next
        # decide's step mark could land between them
        "        sys.stderr.write('KEYS ' + ' '.join(sorted(message)) + '\\n')\n"
        "        print(json.dumps({'seq': message['seq'], 'choice': 2}), flush=True)\n"
    )
    seat = SandboxedSeat(code.encode(), "main.py", replace(CONFIG, finish_ms=5000))
    seat.start(HELLO_2)
    replies = [seat.decide(seq, view, PICK, bank_ms=300) for seq, view in enumerate(VIEWS, 1)]
    # The bot may still be reading the last decide: wait (not frozen, nothing else to do) until it logged it.
    deadline = time.monotonic() + 20
    while len(_logged(seat, "KEYS")) < 3 and time.monotonic() < deadline and seat.alive:
        time.sleep(0.01)
    seat.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
    assert _logged(seat, "KEYS") == ["clock decision seq type view"] * 3, seat.log()
    if fault is None:
        assert [(r.choice, r.fault) for r in replies] == [(2, None)] * 3
    else:  # the bad hello is the fault of the decision it came before; the replies after it count
        assert [(r.choice, r.fault) for r in replies] == [(0, fault), (0, "stale_seq"), (0, "stale_seq")]
        assert "got 'diff'" in replies[0].detail


# --- warm seats -------------------------------------------------------------------------------------------------

LOGS_ITS_PID = "import sys, ludus\nprint('started', file=sys.stderr)\nludus.run(lambda view, decision: 1)\n"


def _version(pk: int, code: str = LOGS_ITS_PID) -> SimpleNamespace:
    return SimpleNamespace(id=pk, sha256=f"sha-{pk}", source=code.encode(), filename="main.py")


def _match_with(version: SimpleNamespace, seat: int) -> tuple[SandboxedSeat, str]:
    """One short match of one seat: hello, a decide, the result; the seat player and its log."""
    player = make_sandboxed_seat(version, seat, config=CONFIG)
    player.start({**HELLO_2, "seat": seat})
    assert player.decide(1, {"seat": seat}, PICK, bank_ms=500).choice == 1
    player.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
    player.close()  # what the runner does after every match: a parked seat stays
    return player, player.log()


def test_warm_seats_play_their_versions_next_match_in_the_same_process(settings: Any) -> None:
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 2
    try:
        first, first_log = _match_with(_version(1), 0)
        again, again_log = _match_with(_version(1), 1)
        other, other_log = _match_with(_version(2), 0)
        assert again is first and first.alive and other is not first
        assert first_log.count("started") == 1 and again_log == ""  # each match has its own log
        assert other_log.count("started") == 1
    finally:
        POOL.clear()
    assert not first.alive and not other.alive and not first.seat_dir.exists()


# One write: print's separate writes of 'cpus' and the list may fall either side of the log's step stamp.
LOGS_ITS_CPUS = ("import os, sys, ludus\nsys.stderr.write(f'cpus {sorted(os.sched_getaffinity(0))}\\n')\n"
                 "ludus.run(lambda view, decision: 1)\n")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: every match runs on it")
def test_a_warm_seat_is_reused_only_by_a_match_pinned_as_it_was(settings: Any) -> None:
    """A seat keeps the CPU affinity it was spawned with (workers/sandbox/pinning.py): reused by a match pinned
    elsewhere, or unpinned, it would run on the CPU another match leased. The runner's thread is pinned here as
    pinning does it."""
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 2
    everywhere = os.sched_getaffinity(0)
    first_cpu, second_cpu = sorted(everywhere)[:2]

    def match_on(cpus: set[int]) -> tuple[SandboxedSeat, str]:
        os.sched_setaffinity(0, cpus)
        try:
            return _match_with(_version(5, LOGS_ITS_CPUS), 0)
        finally:
            os.sched_setaffinity(0, everywhere)

    try:
        first, first_log = match_on({first_cpu})
        elsewhere, elsewhere_log = match_on({second_cpu})
        again, again_log = match_on({first_cpu})
        unpinned, unpinned_log = match_on(everywhere)
        assert f"cpus [{first_cpu}]" in first_log and f"cpus [{second_cpu}]" in elsewhere_log, (first_log,
                                                                                               elsewhere_log)
        assert elsewhere is not first and unpinned is not first and unpinned is not elsewhere
        assert again is first and again_log == ""  # the same pin: the warm seat, which logs nothing more
        assert f"cpus {sorted(everywhere)}" in unpinned_log, unpinned_log
    finally:
        POOL.clear()
    assert not first.alive and not elsewhere.alive and not unpinned.alive


@pytest.mark.parametrize(("warm", "code"), [("0", LOGS_ITS_PID), ("2", HANG_AFTER_RESULT := (
    "import json, sys\n"  # a raw bot that never says it plays on
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'decide': print(json.dumps({'seq': m['seq'], 'choice': 1}), flush=True)\n"
))])
def test_seats_are_not_kept_when_warm_seats_are_off_or_the_bot_does_not_play_on(
    settings: Any, warm: str, code: str
) -> None:
    settings.LUDUS_WARM_SEATS = int(warm)
    first, _ = _match_with(_version(3, code), 0)
    again, _ = _match_with(_version(3, code), 0)
    assert again is not first and not first.alive and not again.alive and not first.seat_dir.exists()


LEFTOVERS = (
    "import json, sys, threading, time\n"  # plays on, and after each result writes replies, then a log line later
    "def later():\n"
    "    time.sleep(0.05)\n"
    "    print('last words', file=sys.stderr, flush=True)\n"
    "    print(json.dumps({'seq': 1, 'choice': 2}), flush=True)\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello':\n"
    "        print('hello', m['seat'], file=sys.stderr, flush=True)\n"
    "        answer = {'type': 'hello', 'views': 'full', 'reuse': True}\n"
    "        if 'epoch' in m: answer['epoch'] = m['epoch']\n"
    "        print(json.dumps(answer), flush=True)\n"
    "    elif m['type'] == 'decide':\n"
    "        print(json.dumps({'seq': m['seq'], 'choice': 1}), flush=True)\n"
    "    elif m['type'] == 'result':\n"
    "        for seq in (1, 2, 3): print(json.dumps({'seq': seq, 'choice': 0}), flush=True)\n"
    "        thread = threading.Thread(target=later)\n"
    "        thread.start()\n"
    "        thread.join()\n"
)


@pytest.mark.parametrize("names_its_epoch", [True, False], ids=["epoch", "raw bot without epochs"])
def test_a_warm_seat_starts_its_next_match_with_nothing_left_of_the_last(settings: Any,
                                                                         names_its_epoch: bool) -> None:
    """What a bot writes after its result (at once, or from a thread while it is parked) belongs to no match: its
    next match reads none of it as a reply, and its next log holds none of it."""
    code = LEFTOVERS if names_its_epoch else LEFTOVERS.replace("if 'epoch' in m: answer['epoch'] = m['epoch']", "pass")
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 2
    seats, logs, replies = [], [], []
    try:
        for seat in (0, 1, 0):
            player = make_sandboxed_seat(_version(6, code), seat, config=CONFIG)
            if seat:  # started as the match loop starts its seats: booted (its answer read), then frozen
                assert start_seats([player], [{**HELLO_2, "seat": seat}]) == [True]
            else:
                player.start({**HELLO_2, "seat": seat})
            replies += [player.decide(seq, {"seat": seat}, PICK, bank_ms=500) for seq in (1, 2)]
            player.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
            player.close()
            seats.append(player)
            logs.append(player.log())
        assert seats[1] is seats[0] and seats[2] is seats[0], "the warm seat played all three"
        assert [(r.choice, r.fault) for r in replies] == [(1, None)] * 6
        assert "hello 0" in logs[0] and "last words" not in logs[1] + logs[2], logs
    finally:
        POOL.clear()
    assert not seats[0].alive


ANSWERS_ONE_HELLO = (
    "import json, sys\n"  # says it plays on, then never answers the next match's hello
    "hellos = 0\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello':\n"
    "        hellos += 1\n"
    "        if hellos == 1: print(json.dumps({'type': 'hello', 'reuse': True, 'epoch': m['epoch']}), flush=True)\n"
    "    elif m['type'] == 'decide':\n"
    "        print(json.dumps({'seq': m['seq'], 'choice': 1}), flush=True)\n"
)


def test_a_woken_seat_that_does_not_answer_its_hello_is_stopped_saying_why(settings: Any) -> None:
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 1
    try:
        first, _ = _match_with(_version(12, ANSWERS_ONE_HELLO), 0)
        again = make_sandboxed_seat(_version(12, ANSWERS_ONE_HELLO), 0, config=CONFIG)
        assert again is first
        again.start(HELLO_2)
        with pytest.raises(SeatDied, match=r"^the bot did not answer its hello \(epoch 2\) in time$"):
            again.decide(1, {}, PICK, bank_ms=500)
        again.close()
        assert not again.alive and not again.seat_dir.exists()
    finally:
        POOL.clear()


def test_a_validation_seat_is_never_parked(settings: Any) -> None:
    """A validation's seat (match None) would wait for a match of its version that a fresh process must play."""
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 2
    try:
        validation = make_sandboxed_seat(_version(7), None, config=CONFIG)
        validation.start(HELLO_2)
        assert validation.decide(1, {}, PICK, bank_ms=500).choice == 1
        validation.finish({"type": "result", "outcome": {"ranks": [1, 2]}})
        validation.close()
        assert not validation.alive and not validation.seat_dir.exists()
        first, _ = _match_with(_version(7), 0)
        assert first is not validation
    finally:
        POOL.clear()


def test_a_full_pool_retires_its_longest_parked_seat_for_a_new_one(settings: Any) -> None:
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 1
    try:
        old, _ = _match_with(_version(8), 0)
        new, _ = _match_with(_version(9), 0)
        assert not old.alive and not old.seat_dir.exists() and new.alive
        again, _ = _match_with(_version(9), 0)
        assert again is new
    finally:
        POOL.clear()


def test_a_seat_parked_longer_than_the_idle_limit_is_retired(settings: Any) -> None:
    from workers.sandbox.warm_pool import POOL

    settings.LUDUS_WARM_SEATS = 2
    settings.LUDUS_WARM_SEATS_IDLE_SECONDS = 0.2
    try:
        idle, _ = _match_with(_version(10), 0)
        wait_until(lambda: not idle.alive and not idle.seat_dir.exists(), 10, "the idle seat to be retired",
                   poll_s=0.01)
        assert _match_with(_version(10), 0)[0] is not idle
    finally:
        POOL.clear()


def test_a_bad_warm_seats_setting_is_refused_with_a_clear_error() -> None:
    """The settings refuse bad values at start-up (tests/config/test_env.py); the sandbox, given them, as well."""
    with pytest.raises(ValueError, match=r"^warm seats must be 0 or more, got -1$"):
        WarmSeats(-1)
    for seconds in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=r"^a warm seat's idle seconds must be a number above 0, got "):
            WarmSeats(1, seconds)


def test_many_seats_leave_nothing_behind() -> None:
    fds = set(os.listdir("/proc/self/fd"))
    threads = threading.active_count()
    for _ in range(12):
        seat = _seat("import ludus\nludus.run(lambda view, decision: 0)\n")
        seat.start(HELLO)
        assert seat.decide(1, {}, PICK, 200).fault is None
        uid = seat.uid
        seat.finish({"type": "result", "outcome": {}})
        assert uid is None or pids_of_uid(uid) == []
    never_started = _seat("x = 1\n")
    dropped = never_started.seat_dir
    del never_started  # garbage-collected without finish(): its finalizer cleans up
    assert not dropped.exists()
    assert set(os.listdir("/proc/self/fd")) <= fds
    assert threading.active_count() <= threads  # none left of its own (one started before may have ended)


def test_a_bot_gets_the_startup_allowance_only_once() -> None:
    seat = _seat("import time, ludus\ntime.sleep(0.8)\nludus.run(lambda view, decision: 0)\n")
    seat.start(HELLO)
    first, wall_ms = _timed_decide(seat, 1, bank_ms=200)  # 0.8 s of start-up is not charged
    assert first.fault is None and first.ms <= max(0, wall_ms - CONFIG.startup_ms), (first, wall_ms)
    seat.finish({"type": "result", "outcome": {}})


def test_a_host_that_cannot_sandbox_fails_the_match_not_the_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    import workers.sandbox.bwrap

    monkeypatch.setattr(workers.sandbox.bwrap, "bwrap_path", lambda: "/bin/false")
    seat = _seat("import ludus\nludus.run(lambda view, decision: 0)\n")
    with pytest.raises(SandboxUnavailable, match="bwrap cannot start a sandbox here"):
        seat.start(HELLO)
    seat.close()
    assert not seat.seat_dir.exists()


WORKER = """
import os, sys, time
from workers.sandbox.bwrap import children_of, find_interpreter
from workers.sandbox.seat import SandboxedSeat
seat = SandboxedSeat(b"import time\\nwhile True: time.sleep(1)\\n", "main.py")
seat.start({"type": "hello", "clock": {"move_ms": 100, "bank_ms": 100}})
while not any(os.readlink(f"/proc/{p}/exe") == find_interpreter().executable for p in children_of(seat.pid)):
    time.sleep(0.005)  # bwrap has exec'd the bot: the worker dies mid-match, not in the middle of a spawn
print(seat.uid, seat.pid, seat.seat_dir, flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="finds the sandbox by its per-seat uid")
def test_the_sandbox_dies_with_its_worker() -> None:
    import signal
    import subprocess
    import sys

    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdout=subprocess.PIPE, cwd=ROOT)
    assert worker.stdout is not None
    uid_text, _, seat_dir = worker.stdout.readline().decode().split()
    uid = int(uid_text)
    assert pids_of_uid(uid)
    worker.send_signal(signal.SIGKILL)  # no finish(), no finalizer: only the kernel and bwrap can clean up
    worker.wait()
    worker.stdout.close()
    deadline = time.monotonic() + 5
    while pids_of_uid(uid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pids_of_uid(uid) == []
    assert Path(seat_dir).exists()  # a killed worker leaves its seat's files behind...
    sweep_orphans(range(uid, uid + 1), Path(SandboxConfig().lock_dir or default_lock_dir()))
    assert not Path(seat_dir).exists()  # ...until a worker process sweeps the uids no live seat holds


FROZEN_WORKER = """
import json, time
from workers.sandbox.seat import SandboxedSeat
from workers.seats import start_seats
seat = SandboxedSeat(b"import ludus\\nludus.run(lambda view, decision: 0)\\n", "main.py")
start_seats([seat], [{"type": "hello", "clock": {"move_ms": 100, "bank_ms": 100}}])  # booted, then frozen
dirs = [str(p) for p in seat.group.dirs.values()]
print(json.dumps({"uid": seat._res.lease.uid, "dirs": dirs, "pids": seat.group.pids()}), flush=True)
time.sleep(600)
"""
SWEEP = "from workers.sandbox.seat_host import prepare_worker; print(prepare_worker({uid}, 1))"


@pytest.mark.skipif(cgroup_host("optional") is None, reason="this host delegates no control groups")
def test_a_worker_killed_with_frozen_seats_leaves_groups_that_the_next_worker_start_removes() -> None:
    import signal
    import subprocess
    import sys

    worker = subprocess.Popen([sys.executable, "-c", FROZEN_WORKER], stdout=subprocess.PIPE, cwd=ROOT)
    assert worker.stdout is not None
    seat = json.loads(worker.stdout.readline())
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    worker.stdout.close()
    dirs = [Path(d) for d in seat["dirs"]]
    assert all(d.is_dir() for d in dirs)  # the group outlives its worker...
    assert set(seat["pids"]) <= {int(p) for p in (dirs[0] / "cgroup.procs").read_text().split()}  # ...frozen
    started = subprocess.run([sys.executable, "-c", SWEEP.format(uid=seat["uid"])], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, check=True)
    assert "one control group per seat" in started.stdout
    assert not any(d.exists() for d in dirs), "the worker start left the killed worker's groups"
    assert pids_of_uid(seat["uid"]) == []  # (their zombies are the host init's to reap)


@pytest.mark.skipif(cgroup_host("optional") is None, reason="this host delegates no control groups")
def test_a_live_worker_leasing_a_dead_workers_uid_first_removes_what_it_left() -> None:
    """A worker that has swept at its start does not sweep again; when another worker on the host dies, its seats'
    uid leases are free at once. The seat that leases such a uid next must not join (or share a uid with) the dead
    worker's frozen seat: the lease removes what the uid left first (freeze, kill, thaw, remove; dirs too)."""
    import signal
    import subprocess
    import sys

    from workers.sandbox.bwrap import UidLease, sweep_once

    host = cgroup_host("optional")
    locks = Path(SandboxConfig().lock_dir or default_lock_dir())
    worker = subprocess.Popen([sys.executable, "-c", FROZEN_WORKER], stdout=subprocess.PIPE, cwd=ROOT)
    assert worker.stdout is not None
    seat = json.loads(worker.stdout.readline())
    uid = seat["uid"]
    sweep_once(range(uid, uid + 1), locks, host)  # this process has swept these uids: the live seat held them
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    worker.stdout.close()
    dirs = [Path(d) for d in seat["dirs"]]
    assert all(d.is_dir() for d in dirs) and pids_of_uid(uid), "the dead worker's seat is left, frozen"
    lease = UidLease(uid, 1, str(locks), host)
    try:
        assert lease.uid == uid
        assert pids_of_uid(uid) == [] and not any(d.exists() for d in dirs)
        assert not [e for e in os.scandir(tempfile.gettempdir()) if e.name.startswith("ludus-")
                    and e.stat(follow_symlinks=False).st_uid == uid]
    finally:
        lease.release()


V2_ROOT = Path("/sys/fs/cgroup/unified")


@pytest.mark.skipif(not (V2_ROOT / "cgroup.procs").exists() or not os.access(V2_ROOT, os.W_OK),
                    reason="no writable cgroup v2 hierarchy")
def test_the_v2_groups_join_freeze_measure_kill_and_go() -> None:
    """As far as this host allows: its v2 tree delegates no controller, so no limit files exist, but the core v2
    interface a seat uses (cgroup.procs, cgroup.freeze, cpu.stat, cgroup.kill) is real."""
    import subprocess

    from workers.sandbox.cgroups import Host, Limits, SeatGroup, prepared

    host = prepared(Host(2, {"": V2_ROOT / f"ludus-test-{os.getpid()}"}, controllers=()))
    group = SeatGroup(host, "seat-1", Limits(64 << 20, 8, 0.5))
    spinner = subprocess.Popen(["/bin/sh", "-c", "read go; while :; do :; done"], stdin=subprocess.PIPE)
    try:
        group.join(spinner.pid)
        assert spinner.stdin is not None
        spinner.stdin.write(b"\n")
        spinner.stdin.flush()
        assert group.pids() == [spinner.pid]
        wait_until(lambda: group.cpu_ns() > 20_000_000, 10, "the spinner to use CPU in its group", poll_s=0.01)
        group.freeze()
        assert group.is_frozen()
        wait_until(lambda: "frozen 1" in (group.dirs[""] / "cgroup.events").read_text(), 10, "the freeze",
                   poll_s=0.01)
        frozen_at = group.cpu_ns()
        assert wait_until(lambda: group.cpu_ns() == frozen_at and spinner.poll() is None, 2, "a frozen group")
        group.thaw()
        wait_until(lambda: group.cpu_ns() > frozen_at, 10, "the spinner to run again once thawed", poll_s=0.01)
        group.kill()
        assert spinner.wait(timeout=10) == -9 and group.pids() == []
    finally:
        spinner.kill()
        spinner.wait()
        group.remove()
        host.parents[""].rmdir()
    assert not group.dirs[""].exists()


def test_a_worker_without_delegated_groups_refuses_uploads_saying_why_and_how() -> None:
    """A real unprivileged worker: neither the v1 hierarchies nor this host's v2 tree are its to write."""
    import subprocess

    probe = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
             "from workers.sandbox.cgroups import CgroupsUnavailable, find_host\n"
             "try:\n    find_host()\nexcept CgroupsUnavailable as exc:\n    print(exc)\n")
    done = subprocess.run(["setpriv", "--reuid=21500", "--regid=21500", "--clear-groups", "/usr/bin/python3", "-S",
                           "-c", probe], capture_output=True, text=True, timeout=60, cwd="/")
    message = done.stdout.strip()
    assert message.startswith("uploaded bots need a control group per seat, and this worker cannot create one ("), \
        done
    assert "is not writable by uid 21500" in message or "does not delegate" in message
    assert "Delegate=yes" in message and "LUDUS_SANDBOX_WITHOUT_CGROUPS=1" in message


@pytest.mark.parametrize(("opted_out", "mode"), [(False, "required"), (True, "optional")])
def test_the_opt_out_setting_lets_seats_run_without_groups(opted_out: bool, mode: str) -> None:
    from django.test import override_settings

    with override_settings(LUDUS_SANDBOX_WITHOUT_CGROUPS=opted_out):
        seat = make_sandboxed_seat(SimpleNamespace(source=b"x = 1\n", filename="bot.py", id=1, sha256=""), None)
    assert seat.config.cgroups == mode
    seat.close()


def test_a_lock_is_held_until_the_last_exit_finalizer_has_run(tmp_path: Path) -> None:
    """At interpreter exit weakref.finalize runs the newest finalizer first: a lock taken after a seat was made used to
    be closed before the seat's own finalizer killed its processes, so another worker could lease the uid while they
    ran. The kernel drops the flock when the process ends anyway: the lock registers no exit finalizer. Here a finalizer
    registered before the lock (as a seat's is) looks at the lock from another open file as the interpreter exits."""
    import subprocess
    import sys

    probe = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
             "import fcntl, os, weakref\n"
             "from workers.sandbox.leases import try_lock\n"
             "path = sys.argv[1]\n"
             "class Seat: pass\n"
             "def look():\n"
             "    fd = os.open(path, os.O_RDWR)\n"
             "    try:\n"
             "        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
             "        print('dropped', flush=True)\n"
             "    except BlockingIOError:\n"
             "        print('held', flush=True)\n"
             "seat = Seat()\n"
             "weakref.finalize(seat, look)\n"
             "lock = try_lock(__import__('pathlib').Path(path))\n"
             "assert lock is not None\n")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "uid-1.lock")], capture_output=True,
                          text=True, timeout=60, cwd="/")
    assert done.stdout.strip() == "held", done


@pytest.mark.parametrize("maker", [
    "prepare_worker", "UidLease", "bpf_path",
    pytest.param("take_cpu", marks=pytest.mark.skipif(
        not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
        reason="this host cannot pin (one CPU): take_cpu leases nothing and makes no lock dir")),
])
def test_a_lock_dir_that_exists_with_a_wider_mode_is_narrowed_to_0700(maker: str, tmp_path: Path) -> None:
    """A Kubernetes hostPath of type DirectoryOrCreate is created 0755, and mkdir(mode=0o700, exist_ok=True) leaves an
    existing dir's mode alone: every place that makes the lock dir narrows it. (Uids 39000 on: outside any seat range,
    so prepare_worker's sweep touches nobody's seats.)"""
    import stat

    from workers.sandbox.bwrap import UidLease
    from workers.sandbox.pinning import take_cpu
    from workers.sandbox.seat_host import prepare_worker
    from workers.sandbox.seccomp import bpf_path

    locks = tmp_path / "locks"
    locks.mkdir()
    locks.chmod(0o755)
    if maker == "prepare_worker":
        prepare_worker(39_000, 1, str(locks))
    elif maker == "UidLease":
        UidLease(39_000, 1, str(locks)).release()
    elif maker == "take_cpu":
        lease = take_cpu(str(locks))
        assert lease is not None, "a host with two CPUs or more leases one"
        lease.release()
    else:
        bpf_path(str(locks))
    assert stat.S_IMODE(locks.stat().st_mode) == 0o700
