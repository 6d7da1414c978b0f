"""Hostile bots against the real bubblewrap sandbox, in real Evolution games
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

Each test plays a whole match with `workers.play.play_game`: one sandboxed bot from tests/workers/bots/ (or the
example bot) against built-in random bots. Every hostile bot must be contained (its limit hit), recorded (faults in
the action log, a forfeit), reported (its capped stderr log), the match must end with an outcome, and the worker,
this test process, must come out unharmed: no child, zombie or leftover process of the seat's uid, no new fd,
thread or temp dir, and bounded memory (the autouse fixture `worker_unharmed`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import pytest
from testkit import listening

from workers.play import PlayResult, play_game
from workers.sandbox.bwrap import pids_of_uid
from workers.sandbox.config import SandboxConfig
from workers.sandbox.seat import SandboxedSeat
from workers.seats import Clock, InProcessSeat, Reply, SeatPlayer

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
GAME = "evolution"
CLOCK = Clock(move_ms=200, bank_ms=500)
CONFIG = SandboxConfig(startup_ms=1500)
WHITELIST = {"PATH", "PYTHONPATH", "HOME", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "LANG", "PWD"}
IS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="per-seat uids are only used when the worker runs as root")


# --- helpers ------------------------------------------------------------------------------------------------------


def bot(name: str, config: SandboxConfig = CONFIG) -> SandboxedSeat:
    path = BOTS / name if not name.startswith("/") else Path(name)
    return SandboxedSeat(path.read_bytes(), path.name, config)


def play(hostile: SeatPlayer, *others: SeatPlayer, players: int = 2, seed: int = 11,
         max_faults: int = 3, clock: Clock = CLOCK) -> PlayResult:
    """A whole Evolution game: the hostile seat 0, the given others, then random bots."""
    seats = [hostile, *others]
    seats += [InProcessSeat("random", GAME, seed + i) for i in range(len(seats), players)]
    return play_game(GAME, players, seed, {}, seats, clock, max_faults)


def faults(result: PlayResult, seat: int = 0) -> list[str]:
    return [a["fault"] for a in result.actions if a["seat"] == seat and "fault" in a]


def moves(result: PlayResult, seat: int = 0) -> list[dict[str, Any]]:
    return [a for a in result.actions if a["seat"] == seat]


def assert_contained(result: PlayResult, seat: SandboxedSeat, index: int = 0) -> None:
    """The match ended with an outcome, the log is capped, and the seat left nothing behind."""
    assert result.outcome is not None and len(result.outcome.ranks) == len(result.logs)
    assert len(result.logs[index].encode()) <= CONFIG.stderr_bytes + 4096
    assert not seat.seat_dir.exists()
    if seat.uid is not None:
        assert _all_pids_of_uid(seat.uid) == [], f"processes of uid {seat.uid} survived the match"


def assert_forfeited_last(result: PlayResult, index: int = 0) -> None:
    assert result.outcome is not None
    assert result.forfeited[index]
    assert result.outcome.ranks[index] == max(result.outcome.ranks)
    assert result.outcome.termination == "forfeit"


def _all_pids_of_uid(uid: int) -> list[int]:
    """Every process of uid (its real uid), zombies included."""
    return [process.pid for process in psutil.process_iter(["uids"])
            if process.info["uids"] is not None and process.info["uids"].real == uid]


def _children() -> list[int]:
    return [child.pid for child in psutil.Process().children()]


def _rss() -> int:
    return int(psutil.Process().memory_info().rss)


@contextlib.contextmanager
def temp_dirs_made() -> Iterator[list[str]]:
    """The temp dirs made meanwhile in this process: a check of the test's own seats, which other processes' seats
    (another xdist worker's) that come and go meanwhile do not disturb."""
    import tempfile

    made: list[str] = []
    mkdtemp = tempfile.mkdtemp

    def recording(*args: Any, **kwargs: Any) -> str:
        made.append(mkdtemp(*args, **kwargs))
        return made[-1]

    tempfile.mkdtemp = recording  # type: ignore[assignment]
    try:
        yield made
    finally:
        tempfile.mkdtemp = mkdtemp


def _log_lines(log: str, prefix: str) -> dict[str, str]:
    """`prefix <key>: <value>` lines of a log, as {key: value}."""
    found = {}
    for line in log.splitlines():
        if line.startswith(prefix):
            key, _, value = line[len(prefix):].partition(": ")
            found[key] = value
    return found


@contextlib.contextmanager
def unharmed() -> Iterator[None]:
    """The worker (this process) comes out as it went in: no child, fd, thread or seat dir more, memory flat."""
    fds = set(os.listdir("/proc/self/fd"))
    threads = set(threading.enumerate())  # another test's thread may end meanwhile: only new ones count
    rss = _rss()
    with temp_dirs_made() as made:
        yield
    assert _children() == [], "the worker has child processes (or zombies) left"
    assert set(os.listdir("/proc/self/fd")) <= fds, "the worker leaked file descriptors"
    assert set(threading.enumerate()) <= threads, "a stderr reader thread is still running"
    assert _rss() - rss < 64 << 20, "the worker's memory grew"
    assert not [path for path in made if os.path.exists(path)], "a seat's temp dir was left behind"


@pytest.fixture(autouse=True)
def worker_unharmed() -> Iterator[None]:
    with unharmed():
        yield


# --- the well-behaved bot -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_the_example_bot_plays_a_whole_game_without_faults(players: int) -> None:
    seat = bot(str(EXAMPLE))
    result = play(seat, players=players)
    assert faults(result) == [] and not any(result.forfeited)
    assert len(moves(result)) > 20
    assert result.outcome is not None and result.outcome.termination == "normal"
    assert "Traceback" not in result.logs[0]
    assert_contained(result, seat)


def test_the_example_bot_plays_from_a_zipped_folder() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mybot/main.py", "from helper import act\nimport ludus\nludus.run(act)\n")
        z.writestr("mybot/helper.py", EXAMPLE.read_text().replace("ludus.run(act)", ""))
    seat = SandboxedSeat(buf.getvalue(), "mybot.zip", CONFIG)
    result = play(seat)
    assert faults(result) == [], result.logs[0]
    assert_contained(result, seat)


def test_the_readme_bot_is_complete_short_and_plays_without_faults() -> None:
    section = (ROOT / "README.md").read_text().split("## Writing a bot", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) < 20
    seat = SandboxedSeat(code.encode(), "bot.py", CONFIG)
    result = play(seat)
    assert faults(result) == [] and not any(result.forfeited), result.logs[0]
    assert_contained(result, seat)


# --- the clock ----------------------------------------------------------------------------------------------------


def test_it_times_out_a_bot_that_loops_at_its_first_move() -> None:
    seat = bot("loop_first.py")
    result = play(seat)
    first = moves(result)[0]
    assert first["fault"] == "timeout" and first["ms"] >= CLOCK.move_ms + CLOCK.bank_ms
    assert faults(result) == ["timeout", "died"]  # killed at the timeout; the next decision finds it dead
    assert_forfeited_last(result)
    assert "no reply within 700 ms; killed" in result.logs[0]
    assert_contained(result, seat)


def test_it_times_out_a_bot_that_loops_mid_game() -> None:
    seat = bot("loop_later.py")
    result = play(seat)
    assert [m.get("fault") for m in moves(result)[:7]] == [None] * 5 + ["timeout", "died"]
    assert_forfeited_last(result)
    assert "decision 6" in result.logs[0]
    assert_contained(result, seat)


def test_it_times_out_and_kills_a_bot_that_sleeps_past_its_bank() -> None:
    seat = bot("sleeper.py")
    result = play(seat)
    timed_out = moves(result)[2]
    assert timed_out["fault"] == "timeout"
    assert timed_out["ms"] >= CLOCK.move_ms + CLOCK.bank_ms  # charged its whole limit (how soon after: benchmarks)
    assert f"no reply within {CLOCK.move_ms + CLOCK.bank_ms} ms; killed" in result.logs[0]
    assert faults(result) == ["timeout", "died"]
    assert_forfeited_last(result)
    assert_contained(result, seat)


# --- resources ----------------------------------------------------------------------------------------------------


def test_it_contains_a_memory_bomb_with_the_address_space_limit() -> None:
    seat = bot("memory_bomb.py")
    # Touching 512 MiB of pages takes well over CLOCK's 700 ms on a loaded machine (the whole suite beside it): the
    # clock must not end the move before the address-space limit does.
    result = play(seat, clock=Clock(move_ms=200, bank_ms=20_000))
    mib = int(re.search(r"MemoryError after (\d+) MiB", result.logs[0]).group(1))  # type: ignore[union-attr]
    assert 0 < mib <= CONFIG.memory_bytes >> 20
    assert faults(result) == ["died"]  # act raised MemoryError: the bot exited with a traceback
    assert "Traceback" in result.logs[0]
    assert_forfeited_last(result)
    assert_contained(result, seat)


@needs_root
def test_it_contains_a_fork_bomb_and_leaves_no_process_behind() -> None:
    seat = bot("fork_bomb.py")
    most = [0]  # the most processes of the seat's uid seen at once, while the game runs

    class Watch(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            if seat.uid is not None and seq < 40:
                most[0] = max(most[0], len(pids_of_uid(seat.uid)))
            return super().decide(seq, view, decision, bank_ms)

    result = play(seat, Watch("random", GAME, 3))
    found = re.search(r"fork failed after (\d+) forks: BlockingIOError errno=11", result.logs[0])
    assert found, result.logs[0]
    assert int(found.group(1)) < CONFIG.max_processes
    assert CONFIG.max_processes - 2 <= most[0] <= CONFIG.max_processes + 1  # bwrap + the bomb at its cap
    assert faults(result) == [] and not any(result.forfeited)  # the parent played on
    assert_contained(result, seat)


def test_it_limits_file_size_and_tmp_space_and_keeps_the_rest_read_only() -> None:
    seat = bot("big_file.py")
    result = play(seat)
    log = result.logs[0]
    written = _log_lines(log, "")
    assert written["one file"] == f"wrote {CONFIG.max_file_bytes >> 20} MiB, OSError errno=27"  # EFBIG
    many = re.fullmatch(r"wrote (\d+) MiB, OSError errno=28", written["many files"])  # ENOSPC
    assert many and int(many.group(1)) <= CONFIG.tmp_bytes >> 20
    for path in ("/bot/x", "/x", "/dev/x", "/usr/lib/x"):
        assert re.fullmatch(r"wrote 0 MiB, (OSError|FileNotFoundError|PermissionError) errno=(30|2|13)",
                            written[path]), (path, written[path])
    assert re.fullmatch(r"wrote [01] MiB, OSError errno=28", written["/dev/shm/x"])
    assert faults(result) == []
    assert_contained(result, seat)


# --- isolation ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seccomp", [True, False], ids=["seccomp", "namespace alone"])
def test_it_cuts_the_bot_off_the_network(seccomp: bool) -> None:
    seat = bot("network.py", replace(CONFIG, seccomp=seccomp))
    result = play(seat)
    attempts = _log_lines(result.logs[0], "connect ")
    assert len(attempts) == 6 and not any("CONNECTED" in v for v in attempts.values()), attempts
    for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432"):
        assert attempts[path] == "failed FileNotFoundError errno=2"  # a unix socket may be made: nothing to reach
    info = _log_lines(result.logs[0], "")
    assert info["tcp listeners"] == "0" and info["postgres dir exists"] == "False"
    if seccomp:  # no inet or netlink socket at all (EAFNOSUPPORT: tests/workers/test_sandbox_sockets.py)
        for target in ("('127.0.0.1', 5432)", "('127.0.0.1', 6379)", "('localhost', 5432)"):
            assert attempts[target] == "failed OSError errno=97", (target, attempts)
        assert info["interfaces"] == "failed OSError errno=97"
    else:  # behind it, a network namespace where nothing listens: refused, not filtered or denied by permissions
        assert attempts["('127.0.0.1', 5432)"] == "failed ConnectionRefusedError errno=111"
        assert attempts["('127.0.0.1', 6379)"] == "failed ConnectionRefusedError errno=111"
        assert attempts["('localhost', 5432)"].startswith("failed gaierror")  # not even a hosts file
        assert info["interfaces"] == "['lo']"
        # The same addresses do answer from the worker, so the failures above are the sandbox's doing.
        for port in (5432, 6379):
            if listening(port):
                assert "ConnectionRefusedError" in attempts[f"('127.0.0.1', {port})"]
    assert faults(result) == []
    assert_contained(result, seat)


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_it_hides_other_bots_the_project_the_settings_and_the_worker_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LUDUS_TEST_SECRET", "hunter2-do-not-leak")
    victim = bot(str(EXAMPLE))
    targets = [str(victim.seat_dir), str(victim.seat_dir / "bot" / "main.py"), str(ROOT),
               str(ROOT / "tournaments" / "settings.py"), str(ROOT / "engine" / "sdk.py"), "../config/settings.py",
               "/work", "/root", "/etc/passwd", "/etc/hostname", "/home", "/var/run/postgresql", "/proc/2/environ",
               "/sys/class/net"]
    source = _zip({"main.py": (BOTS / "snoop.py").read_bytes(), "targets.json": json.dumps(targets).encode()})
    snoop = SandboxedSeat(source, "snoop.zip", CONFIG)
    result = play(snoop, victim, players=3)
    log = result.logs[0]
    reads = _log_lines(log, "read ")
    assert set(reads) == set(targets)
    for path, outcome in reads.items():
        assert outcome.startswith("failed FileNotFoundError"), (path, outcome)
    env = json.loads(_log_lines(log, "")["env"])
    assert set(env) <= WHITELIST and env["HOME"] == "/tmp" and env["PYTHONPATH"] == "/ludus:/bot"
    assert "hunter2" not in log and "LUDUS_TEST_SECRET" not in log
    assert _log_lines(log, "")["pids"] == "[1]"  # its own pid namespace: not even bwrap is visible
    assert faults(result) == [] and faults(result, seat=1) == []
    if IS_ROOT:  # even if a path leaked, the other seat's dir belongs to another uid, mode 0700
        assert victim.uid != snoop.uid
    assert_contained(result, snoop)
    assert_contained(result, victim, 1)


@needs_root
def test_each_seat_runs_as_its_own_unprivileged_uid_with_a_bare_environment() -> None:
    seats = [bot("identity.py"), bot("identity.py")]
    seen: dict[int, list[str]] = {}

    class Watch(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            for seat in seats:  # the processes as the host sees them, mid-game (not while bwrap sets up)
                assert seat.uid is not None
                if seat.uid not in seen and seq > 30:
                    seen[seat.uid] = [Path(f"/proc/{p}/status").read_text() for p in pids_of_uid(seat.uid)]
            return super().decide(seq, view, decision, bank_ms)

    result = play(seats[0], seats[1], Watch("random", GAME, 5), players=3)
    ids = [json.loads(_log_lines(log, "")["identity"]) for log in result.logs[:2]]
    uids = {i["uid"] for i in ids}
    assert len(uids) == 2 and 0 not in uids and all(i["euid"] == i["uid"] == i["gid"] for i in ids)
    assert uids == {s.uid for s in seats}
    assert all(CONFIG.uid_base <= uid < CONFIG.uid_base + CONFIG.uid_count for uid in uids)
    assert set(seen) == uids
    for uid, statuses in seen.items():  # in the host's namespace too: bwrap and the bot, never root
        assert statuses and all(re.search(rf"^Uid:\t{uid}\t{uid}\t{uid}\t{uid}$", s, re.M) for s in statuses)
        assert all(re.search(r"^Groups:\s*$", s, re.M) for s in statuses)
        assert all(re.search(r"^CapEff:\t0+$", s, re.M) for s in statuses)
    for identity in ids:
        assert identity["groups"] == [] and set(identity["env"]) <= WHITELIST
        assert identity["root"] == ["bin", "bot", "dev", "lib", "lib64", "ludus", "proc", "tmp", "usr"]
        assert identity["work"] is False and identity["cwd"] == "/bot" and identity["files"] == ["main.py"]
    assert faults(result) == [] and faults(result, 1) == []
    for i, seat in enumerate(seats):
        assert_contained(result, seat, i)


# --- the protocol ---------------------------------------------------------------------------------------------------


def test_garbage_on_stdout_is_a_fault_until_the_seat_forfeits() -> None:
    seat = bot("stdout_garbage.py")
    result = play(seat)
    assert faults(result) == ["bad_json"] * 3
    assert all(m["choice"] == 0 for m in moves(result))  # the default, then forfeited defaults
    assert_forfeited_last(result)
    assert_contained(result, seat)


def test_a_stdout_flood_is_cut_at_one_mebibyte_per_line() -> None:
    seat = bot("stdout_flood.py")
    rss = _rss()
    result = play(seat)
    assert faults(result)[0] == "too_long" and len(faults(result)) == 3
    assert set(faults(result)) <= {"too_long", "bad_json"}
    assert _rss() - rss < 16 << 20
    assert_forfeited_last(result)
    assert_contained(result, seat)


def test_a_stderr_flood_is_capped_keeping_its_head_and_tail_and_costs_no_fault() -> None:
    seat = bot("stderr_flood.py")
    result = play(seat)
    log = result.logs[0]
    assert log.startswith("start of the flood\n")  # the head says what came first...
    assert log.endswith("p\nend of the game\n")  # ...the tail how it ended
    dropped = re.search(r"\n\[truncated: (\d+) bytes in the middle\]\n", log)
    assert dropped and int(dropped.group(1)) > 10 << 20
    assert len(log.encode()) <= CONFIG.stderr_bytes + 100
    assert faults(result) == [] and not any(result.forfeited)
    assert_contained(result, seat)


def test_stale_seq_replies_are_faults_until_the_seat_forfeits_and_is_stopped() -> None:
    seat = bot("stale_seq.py")
    stopped_mid_game: list[list[int]] = []

    class Watch(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            if not stopped_mid_game and not seat.seat_dir.exists() and seat.uid is not None:
                stopped_mid_game.append(pids_of_uid(seat.uid))
            return super().decide(seq, view, decision, bank_ms)

    result = play(seat, Watch("random", GAME, 2), max_faults=3)
    assert faults(result) == ["stale_seq"] * 3
    assert_forfeited_last(result)
    assert stopped_mid_game == [[]]  # the forfeited bot was stopped at once, not at the end of the match
    assert_contained(result, seat)


def test_a_bot_that_exits_at_once_forfeits_and_ranks_last() -> None:
    seat = bot("exit_at_once.py")
    result = play(seat, players=3)
    assert faults(result) in (["died"], [])  # dead at hello (no fault recorded) or at its first decision
    assert_forfeited_last(result)
    assert len(moves(result)) > 0 and all(m["choice"] == 0 for m in moves(result))
    assert_contained(result, seat)


def test_a_broken_upload_forfeits_without_failing_the_match() -> None:
    seat = SandboxedSeat(_zip({"bot.py": b"print('no main')"}), "bot.zip", CONFIG)
    result = play(seat)
    assert_forfeited_last(result)
    assert "no main.py" in result.logs[0]
    assert_contained(result, seat)
