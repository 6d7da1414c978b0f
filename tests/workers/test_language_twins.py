"""The hostile bots that matter across languages, in JavaScript and C++ (tests/workers/bots/twins/): every
containment promise of docs/bots.md holds for a runtime other than Python's (docs/bots.md, "Languages").

Each plays a whole Evolution game in the real sandbox (workers/play.py) against a built-in random bot, as its Python
twin does in tests/workers/test_sandbox.py and tests/workers/test_sandbox_groups.py, and the worker comes out
unharmed (the same autouse check)."""

from __future__ import annotations

import functools
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_sandbox import CONFIG, GAME, assert_contained, assert_forfeited_last, faults, moves, play, unharmed
from testkit import zipped

from tournaments.languages import read_manifest
from tournaments.uploads import UploadLimits
from workers.sandbox.build import build_bot
from workers.sandbox.bwrap import pids_of_uid
from workers.sandbox.seat import SandboxedSeat
from workers.seats import Clock, InProcessSeat, Reply

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
    pytest.mark.skipif(shutil.which("node", path="/usr/bin") is None or shutil.which("g++", path="/usr/bin") is None,
                       reason="node or g++ is not installed: run `make sysdeps`"),
]

TWINS = Path(__file__).resolve().parent / "bots" / "twins"
CLOCK = Clock(move_ms=200, bank_ms=500)



def js(name: str) -> SandboxedSeat:
    toml = b'language = "javascript"\nrun = "node main.js"\n'
    source = zipped({"ludus.toml": toml, "main.js": (TWINS / name).read_bytes()})
    return SandboxedSeat(source, "twin.zip", CONFIG, "bwrap", read_manifest(toml))


@functools.lru_cache(maxsize=4)
def _built(name: str) -> tuple[bytes, bytes]:
    toml = b'language = "cpp"\nbuild = "g++ -O2 -std=c++20 -pthread -o bot main.cpp"\n'
    source = zipped({"ludus.toml": toml, "main.cpp": (TWINS / name).read_bytes()})
    built = build_bot(source, "twin.zip", read_manifest(toml), UploadLimits())
    assert built.ok, built.log
    return source, built.artifact


def cpp(name: str) -> SandboxedSeat:
    source, artifact = _built(name)
    manifest = read_manifest(b'language = "cpp"\nbuild = "g++ -O2 -std=c++20 -pthread -o bot main.cpp"\n')
    return SandboxedSeat(source, "twin.zip", CONFIG, "bwrap", manifest, artifact)


@pytest.fixture(scope="module", autouse=True)
def built_first() -> None:
    """The C++ twins are built before any test's unharmed check starts (a build is not a match)."""
    _built("ponder_thread.cpp")
    _built("syscalls.cpp")


@pytest.fixture(autouse=True)
def worker_unharmed() -> Iterator[None]:
    with unharmed():
        yield


def test_a_spinning_javascript_bot_is_timed_out_and_killed() -> None:
    seat = js("spin.js")
    result = play(seat, clock=CLOCK)
    first = moves(result)[0]
    assert first["fault"] == "timeout" and first["ms"] >= CLOCK.move_ms + CLOCK.bank_ms
    assert faults(result) == ["timeout", "died"]
    assert_forfeited_last(result)
    assert_contained(result, seat)


def test_a_sleeping_javascript_bot_is_timed_out_at_its_bank() -> None:
    seat = js("sleep.js")
    result = play(seat, clock=CLOCK)
    timed_out = moves(result)[2]
    assert timed_out["fault"] == "timeout"
    assert timed_out["ms"] >= CLOCK.move_ms + CLOCK.bank_ms  # charged its whole limit (how soon after: benchmarks)
    assert f"no reply within {CLOCK.move_ms + CLOCK.bank_ms} ms; killed" in result.logs[0]
    assert_forfeited_last(result)
    assert_contained(result, seat)


def test_a_javascript_memory_bomb_is_stopped_at_the_seats_memory() -> None:
    seat = js("memory.js")
    result = play(seat, clock=Clock(move_ms=200, bank_ms=20_000))
    held = [int(m) for m in re.findall(r"holding (\d+) MiB", result.logs[0])]
    assert held and max(held) < CONFIG.group_memory_bytes >> 20, result.logs[0]
    assert faults(result)[0] in ("oom", "died"), result.logs[0]
    assert_forfeited_last(result)
    assert_contained(result, seat)


def test_a_javascript_fork_bomb_is_capped_and_leaves_no_process_behind() -> None:
    seat = js("fork.js")
    most = [0]

    class Watch(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            if seat.uid is not None and seq < 40:
                most[0] = max(most[0], len(pids_of_uid(seat.uid)))
            return super().decide(seq, view, decision, bank_ms)

    result = play(seat, Watch("random", GAME, 3), clock=Clock(move_ms=200, bank_ms=5000))
    assert "spawn failed: EAGAIN" in result.logs[0] or "spawn threw" in result.logs[0], result.logs[0]
    if seat.uid is not None:
        assert 0 < most[0] <= CONFIG.max_processes + 1
    assert_contained(result, seat)


def test_a_javascript_flood_is_cut_on_stdout_and_capped_on_stderr() -> None:
    seat = js("flood.js")
    result = play(seat, clock=CLOCK)
    assert faults(result)[0] == "too_long"
    assert "flood 0 " in result.logs[0] and "flood 8191 " in result.logs[0]  # its head and its tail
    assert_contained(result, seat)


def test_a_javascript_bot_that_closes_its_stdout_dies_and_forfeits() -> None:
    seat = js("close.js")
    result = play(seat, clock=CLOCK)
    assert faults(result) == ["died"] and "closed its stdout" in result.logs[0], result.logs[0]
    assert_forfeited_last(result)
    assert_contained(result, seat)


def test_a_cpp_bot_whose_thread_computes_after_its_reply_is_caught_and_frozen() -> None:
    seat = cpp("ponder_thread.cpp")
    frozen = []

    class Look(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            group = seat.group
            if group is not None and not group.removed:
                frozen.append(group.is_frozen())
            time.sleep(0.02)  # the other seat's move, long enough for a look (docs/bots.md, "The freezer")
            return super().decide(seq, view, decision, bank_ms)

    result = play(seat, Look("random", GAME, 3), clock=Clock(move_ms=1000, bank_ms=10_000))
    assert seat.caught and "used" in seat.caught, result.logs[0]
    assert "frozen whenever it waits, from now on" in result.logs[0]
    assert frozen and frozen[-1], frozen  # from then on, frozen whenever the other seat decides
    assert_contained(result, seat)


def test_a_javascript_seat_is_frozen_whenever_another_decides() -> None:
    seat = js("sleep.js")  # honest for its first two decisions
    frozen = []

    class Look(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            group = seat.group
            if group is not None and not group.removed and seat.alive:
                frozen.append(group.is_frozen())
            return super().decide(seq, view, decision, bank_ms)

    play(seat, Look("random", GAME, 3), clock=CLOCK)
    assert frozen and all(frozen), frozen


def test_a_cpp_bots_refused_syscalls_answer_eperm() -> None:
    seat = cpp("syscalls.cpp")
    result = play(seat, clock=CLOCK)
    found = dict(re.findall(r"^(\w+ \w+): (\w+)$", result.logs[0], re.M))
    assert len(found) == 12, result.logs[0]
    assert found.pop("namespaces clone3") == "ENOSYS"
    assert set(found.values()) == {"EPERM"}, found
    assert faults(result) == []
    assert_contained(result, seat)
