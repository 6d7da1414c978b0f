"""Fairness: an honest bot that uses 60 % of its move clock never times out against any thief of tests/workers/bots,
one match at a time or two at once (docs/bots.md, "The freezer"; docs/operations.md, "One CPU a match").

Each match is played as the runner plays it: its thread leases a CPU and is pinned to it (workers/sandbox/pinning.py),
the seats spawned there inherit the pin, so the honest bot and the thief share one CPU. The leases are flocks in a lock
dir of the test's own. What is asserted: the honest seat's fault records (no timeout, no forfeit) and the thief's CPU
counter around each of the honest seat's decisions, never a wall-clock window.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_sandbox import BOTS, GAME, assert_contained, faults, moves

from workers.play import PlayResult, play_game
from workers.sandbox import pinning
from workers.sandbox.cgroups import FROZEN_PERIOD_US
from workers.sandbox.config import SandboxConfig
from workers.sandbox.seat import SandboxedSeat
from workers.sandbox.seat_host import cgroup_host
from workers.seats import Clock, Reply

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
    pytest.mark.skipif(cgroup_host("optional") is None, reason="this host delegates no control groups"),
    pytest.mark.skipif(not pinning.can_pin(), reason="the runner pins a match to one CPU only where it can"),
]

# Every bot of tests/workers/bots that computes, or makes the kernel compute, while another seat holds the decision.
THIEVES = ["kernel_thief.py", "session_spinners.py", "ponder_child.py", "ponder_thread.py", "ponder_late.py",
           "ponder_big.py"]
CONFIG = SandboxConfig(startup_ms=1500)
# honest_60.py works 60 ms of CPU a move: 40 ms to spare. The bank is for a busy host (other processes on the match's
# CPU), not for a thief: what a thief takes is asserted from its CPU counter.
CLOCK = Clock(move_ms=100, bank_ms=10_000)
CAUGHT_MS = 100
FROZEN_MS = 1 + 4 + 1  # workers/sandbox/cgroups.py FROZEN_CPU's quota, a 250 Hz tick, a millisecond for the counter
PERIOD_NS = FROZEN_PERIOD_US * 1000  # the quota is FROZEN_MS's 1 ms in each such period, however long a decision waits
# Evolution's short deck: some 15 honest moves a match instead of 35, every one of them against the thief (the
# thieves do the same at every wait, so a longer game asserts the same thing more times: benchmarks.fairness plays
# the standard deck for the table).
OPTIONS = {"deck": "short"}
HONEST_MOVES = 5  # its first moves: the ones a thief that takes the CPU first would push over the clock


@pytest.fixture
def locks(tmp_path: Path) -> Iterator[str]:
    yield str(tmp_path)


class Honest(SandboxedSeat):
    """honest_60.py, recording the thief's CPU counter before and after each of its decisions."""

    def __init__(self, thief: SandboxedSeat) -> None:
        super().__init__((BOTS / "honest_60.py").read_bytes(), "honest_60.py", CONFIG)
        self.thief, self.during = thief, []  # type: tuple[SandboxedSeat, list[int]]
        self.periods: list[int] = []  # how many of the frozen quota's periods each decision began (1 or more)

    def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
        group = self.thief.group
        if group is None or group.removed:
            return super().decide(seq, view, decision, bank_ms)
        before, began = group.cpu_ns(), time.monotonic_ns()
        reply = super().decide(seq, view, decision, bank_ms)
        self.during.append(group.cpu_ns() - before)
        self.periods.append(1 + (time.monotonic_ns() - began) // PERIOD_NS)
        return reply


def _match(thief_name: str, seed: int, locks: str,
           events: list[tuple[str, str, int | None]] | None = None) -> tuple[PlayResult, SandboxedSeat, Honest]:
    """One match on a leased CPU, as workers/runner.py plays a match with a sandboxed seat; events gets (start, name,
    its CPU) and (end, name, its CPU), in the order they happened."""
    with pinning.one_cpu(lock_dir=locks) as cpu:
        if events is not None:
            events.append(("start", thief_name, cpu))
        thief = SandboxedSeat((BOTS / thief_name).read_bytes(), thief_name, CONFIG)
        honest = Honest(thief)
        result = play_game(GAME, 2, seed, OPTIONS, [thief, honest], CLOCK, 3)
        if events is not None:
            events.append(("end", thief_name, cpu))
    return result, thief, honest


def _assert_fair(thief_name: str, result: PlayResult, thief: SandboxedSeat, honest: Honest) -> None:
    assert faults(result, 1) == [] and not result.forfeited[1], (thief_name, faults(result, 1), result.logs[1][-800:])
    worked = moves(result, 1)[1:]
    assert len(worked) >= HONEST_MOVES and all(m["cpu_ms"] >= 55 for m in worked), (thief_name, worked)
    stolen_ms = sum(honest.during) / 1e6
    # What the thief's group used while the honest seat decided, on their one CPU (its CPU counter): a look's worth
    # once, before the freezer caught it (docs/bots.md, "The freezer": some 15 ms; CAUGHT_MS for a worker woken late
    # on a busy host), then, frozen during each of the honest seat's decisions, at most a frozen group's 1 ms quota and
    # the scheduler tick it may overrun it by (FROZEN_MS) in each quota period the decision spans: a decision slowed by
    # a busy host spans more than one. The periods come from the wall clock, as the kernel's quota does; the bound is
    # the throttle's own rule, not a timing window.
    took = [n // 10**6 for n in honest.during]
    allowed = CAUGHT_MS + FROZEN_MS * sum(honest.periods)
    assert stolen_ms < allowed, (thief_name, stolen_ms, allowed, took)
    if thief_name == "kernel_thief.py":  # the seccomp filter refused its call (the throttle alone did not hold on 6.18)
        assert "kernel thief: madvise: Operation not permitted" in result.logs[0], result.logs[0][-800:]
    assert_contained(result, thief)


@pytest.mark.parametrize("thief_name", THIEVES)
def test_an_honest_bot_never_times_out_against_a_thief_one_match_at_a_time(thief_name: str, locks: str) -> None:
    for seed in range(2):  # and 3 more against each thief two matches at once, below
        result, thief, honest = _match(thief_name, seed, locks)
        _assert_fair(thief_name, result, thief, honest)


def _at_once(pair: list[str], seed: int, locks: str) -> tuple[dict[str, Any], list[tuple[str, str, int | None]]]:
    """The two matches of pair played at once, each in a thread of its own: what each gave, and the events of both."""
    played: dict[str, tuple[PlayResult, SandboxedSeat, Honest]] = {}
    errors: list[BaseException] = []
    events: list[tuple[str, str, int | None]] = []

    def play(name: str) -> None:
        try:
            played[name] = _match(name, seed, locks, events)
        except BaseException as exc:  # raised again in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(name,)) for name in pair]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return played, events


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="two matches at once on fewer CPUs: one CPU is left")
@pytest.mark.parametrize("pair", [THIEVES[i:i + 2] for i in range(0, len(THIEVES), 2)], ids="+".join)
def test_an_honest_bot_never_times_out_against_a_thief_two_matches_at_once(pair: list[str], locks: str) -> None:
    """Two matches at once while every CPU but one is leased elsewhere (another worker's matches): neither may be
    played where its seats can take the other's CPU (docs/operations.md, "One CPU a match")."""
    held = [pinning.take_cpu(locks) for _ in range(len(os.sched_getaffinity(0)) - 1)]
    assert None not in held
    try:
        for seed in range(3):  # with the one-at-a-time test, 5 matches against each thief
            played, events = _at_once(pair, seed, locks)
            # Each match was pinned, and two that shared a CPU did not overlap: the one free CPU was waited for.
            assert all(cpu is not None for _, _, cpu in events), events
            for (kind, _, cpu), (next_kind, _, next_cpu) in zip(events, events[1:], strict=False):
                assert not (kind == next_kind == "start" and cpu == next_cpu), events
            for name in pair:
                _assert_fair(name, *played[name])
    finally:
        for lease in held:
            if lease is not None:
                lease.release()
