"""What the sandbox costs: the per-decision round trip and the start-up of a seat, sandboxed against bare.

The messages are real: one 3-player Evolution game between random bots is played, and every decision becomes the
`decide` line a bot would get (its seat's view included). They are replayed to an echo bot (the SDK answering
option 0 at once) in four ways, interleaved so that a busy machine slows all of them alike:

- bare pipe:      `python3 -S echo.py`, a minimal write-line / read-line loop on pre-encoded messages;
- bwrap pipe:     the same loop and script, started under bwrap exactly as a seat is (same argv, uid, rlimits);
- seat (none):    `SandboxedSeat.decide` with LUDUS_SANDBOX=none: encoding, the clock, the strict parser;
- seat (bwrap):   `SandboxedSeat.decide` in the real sandbox: everything a match pays per decision;

and, apart, the engine's cost of building and encoding each decide line, which both seat rows include.

Start-up, spawn to the first reply: the bare script, the same under bwrap, and the full `SandboxedSeat.start` plus
first `decide` (unpacking, uid lease, bwrap self-test cached); plus `python3 -S -c pass` bare and under bwrap.

    python -m benchmarks.sandbox                 # table
    python -m benchmarks.sandbox --json          # one JSON object
    python -m benchmarks.sandbox --passes 10 --starts 50
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import load_game, protocol
from engine.core import Decision
from workers.bwrap import SANDBOX_ENV, UidLease, bwrap_command, find_interpreter, limiter
from workers.sandbox import SDK_SOURCE, SandboxConfig, SandboxedSeat

ECHO_BOT = b"import ludus\nludus.run(lambda view, decision: 0)\n"
CLOCK = {"move_ms": 1000, "bank_ms": 10_000}
TARGET_ROUND_TRIP_RATIO = 1.5
TARGET_START_RATIO = 2.0
Captured = list[tuple[int, dict[str, Any], Decision]]


def capture_decisions(seed: int = 1, players: int = 3) -> Captured:
    """Every decision of one random Evolution game, with the deciding seat's view."""
    state = load_game("evolution").new_state(players, seed, None)
    rng = random.Random(seed)
    found: Captured = []
    while (decision := state.decision()) is not None:
        found.append((len(found) + 1, state.view(decision.seat), decision))
        state.choose(rng.randrange(len(decision.options)))
    return found


class Bench:
    """A private directory holding the echo bot and the SDK, and the ways to start it."""

    def __init__(self, root: Path) -> None:
        self.bot, self.sdk = root / "bot", root / "ludus"
        self.bot.mkdir()
        self.sdk.mkdir()
        (self.bot / "main.py").write_bytes(ECHO_BOT)
        (self.sdk / "ludus.py").write_bytes(SDK_SOURCE.read_bytes())
        for path in (root, self.bot, self.sdk):
            path.chmod(0o755)
        self.interp = find_interpreter()
        self.lease = UidLease(40000, 100) if os.geteuid() == 0 else None
        self.config = SandboxConfig()

    def argv(self, kind: str, program: tuple[str, ...]) -> list[str]:
        if kind == "bare":
            return [self.interp.executable, "-S", *program]
        return bwrap_command(self.interp, str(self.bot), str(self.sdk), self.config.tmp_bytes, program)

    def popen(self, kind: str, program: tuple[str, ...]) -> subprocess.Popen[bytes]:
        uid = self.lease.uid if self.lease else None
        env = dict(SANDBOX_ENV, PYTHONPATH=str(self.sdk)) if kind == "bare" else dict(SANDBOX_ENV)
        return subprocess.Popen(
            self.argv(kind, program), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
            cwd=str(self.bot) if kind == "bare" else "/", start_new_session=True,
            preexec_fn=limiter(self.config.rlimits()), user=uid, group=uid, extra_groups=[] if uid else None,
        )

    def script(self, kind: str) -> tuple[str, ...]:
        return (str(self.bot / "main.py"),) if kind == "bare" else ("/bot/main.py",)


def pipe_round_trips(bench: Bench, kind: str, lines: list[bytes]) -> list[float]:
    """Seconds per message: write one decide line, read one reply line, on a plain blocking pipe."""
    proc = bench.popen(kind, bench.script(kind))
    assert proc.stdin is not None and proc.stdout is not None
    times = []
    try:
        for line in lines:
            t0 = time.perf_counter()
            proc.stdin.write(line)
            proc.stdin.flush()
            reply = proc.stdout.readline()
            times.append(time.perf_counter() - t0)
            assert reply.startswith(b'{"seq"'), reply
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
    return times


def seat_round_trips(sandbox: str, decisions: Captured) -> list[float]:
    """Seconds per decide() of a SandboxedSeat: all a match pays per decision."""
    seat = SandboxedSeat(ECHO_BOT, "echo.py", SandboxConfig(), sandbox)
    seat.start(protocol.hello("evolution", "1", 0, 3, {}, CLOCK))
    seat.decide(0, {}, decisions[0][2], CLOCK["bank_ms"])  # the first decide includes start-up
    times = []
    try:
        for seq, view, decision in decisions:
            t0 = time.perf_counter()
            reply = seat.decide(seq, view, decision, CLOCK["bank_ms"])
            times.append(time.perf_counter() - t0)
            assert reply.fault is None, reply
    finally:
        seat.finish(protocol.result({}))
    return times


def start_to_first_reply(bench: Bench, kind: str, first: bytes) -> float:
    t0 = time.perf_counter()
    proc = bench.popen(kind, bench.script(kind))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(first)
    proc.stdin.flush()
    proc.stdout.readline()
    elapsed = time.perf_counter() - t0
    proc.stdin.close()
    proc.wait()
    proc.stdout.close()
    return elapsed


def start_empty(bench: Bench, kind: str) -> float:
    t0 = time.perf_counter()
    proc = bench.popen(kind, ("-c", "pass"))
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            pipe.close()
    return time.perf_counter() - t0


def start_seat(decisions: Captured) -> float:
    t0 = time.perf_counter()
    seat = SandboxedSeat(ECHO_BOT, "echo.py", SandboxConfig(), "bwrap")
    seat.start(protocol.hello("evolution", "1", 0, 3, {}, CLOCK))
    seat.decide(1, decisions[0][1], decisions[0][2], CLOCK["bank_ms"])
    elapsed = time.perf_counter() - t0
    seat.finish(protocol.result({}))
    return elapsed


def encode_times(decisions: Captured) -> list[float]:
    """Seconds to build and encode each decide line: the engine's share of a seat's round trip."""
    times = []
    for seq, view, decision in decisions:
        t0 = time.perf_counter()
        protocol.encode(protocol.decide(seq, view, decision, CLOCK))
        times.append(time.perf_counter() - t0)
    return times


def interleaved(runs: dict[str, Callable[[], list[float]]], passes: int) -> dict[str, list[float]]:
    """Run each measurement once per pass, in turn, so that background load falls on all of them."""
    results: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(passes):
        for name, run in runs.items():
            results[name] += run()
    return results


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"median_us": statistics.median(ordered) * 1e6, "p90_us": ordered[int(len(ordered) * 0.9)] * 1e6,
            "n": len(ordered)}


def run(passes: int, starts: int) -> dict[str, Any]:
    decisions = capture_decisions()
    lines = [protocol.encode(protocol.decide(seq, view, d, CLOCK)) for seq, view, d in decisions]
    with tempfile.TemporaryDirectory(prefix="ludus-bench-") as tmp:
        bench = Bench(Path(tmp))
        round_trips = interleaved({
            "bare pipe": lambda: pipe_round_trips(bench, "bare", lines),
            "bwrap pipe": lambda: pipe_round_trips(bench, "bwrap", lines),
            "seat (none)": lambda: seat_round_trips("none", decisions),
            "seat (bwrap)": lambda: seat_round_trips("bwrap", decisions),
            "encode decide (in both seats)": lambda: encode_times(decisions),
        }, passes)
        start_ups = interleaved({
            "bare: python3 -S -c pass": lambda: [start_empty(bench, "bare")],
            "bwrap: python3 -S -c pass": lambda: [start_empty(bench, "bwrap")],
            "bare: echo bot to first reply": lambda: [start_to_first_reply(bench, "bare", lines[0])],
            "bwrap: echo bot to first reply": lambda: [start_to_first_reply(bench, "bwrap", lines[0])],
            "seat: start() to first reply": lambda: [start_seat(decisions)],
        }, starts)
        if bench.lease:
            bench.lease.release()
    rt = {name: summary(s) for name, s in round_trips.items()}
    st = {name: summary(s) for name, s in start_ups.items()}
    bare_rt, bare_st = rt["bare pipe"]["median_us"], st["bare: echo bot to first reply"]["median_us"]
    sizes = sorted(len(line) for line in lines)
    return {
        "messages": {"count": len(lines), "median_bytes": sizes[len(sizes) // 2], "max_bytes": sizes[-1]},
        "round_trip": rt,
        "start": st,
        "ratios": {
            "bwrap pipe / bare pipe": rt["bwrap pipe"]["median_us"] / bare_rt,
            "seat (bwrap) / bare pipe": rt["seat (bwrap)"]["median_us"] / bare_rt,
            "seat (bwrap) / seat (none)": rt["seat (bwrap)"]["median_us"] / rt["seat (none)"]["median_us"],
            "bwrap start / bare start": st["bwrap: echo bot to first reply"]["median_us"] / bare_st,
            "seat start / bare start": st["seat: start() to first reply"]["median_us"] / bare_st,
            "bwrap empty / bare empty": st["bwrap: python3 -S -c pass"]["median_us"]
            / st["bare: python3 -S -c pass"]["median_us"],
        },
        "targets": {"round_trip": TARGET_ROUND_TRIP_RATIO, "start": TARGET_START_RATIO},
        "python": sys.version.split()[0], "interpreter": find_interpreter().executable, "cpus": os.cpu_count(),
    }


def print_table(report: dict[str, Any]) -> None:
    m = report["messages"]
    print(f"{m['count']} real Evolution decide messages (median {m['median_bytes']} B, max {m['max_bytes']} B), "
          f"sandbox interpreter {report['interpreter']}")
    for title, key in (("round trip per decision", "round_trip"), ("start-up", "start")):
        print(f"\n{title:34} {'median':>12} {'p90':>12} {'n':>7}")
        for name, s in report[key].items():
            print(f"{name:34} {s['median_us']:>10.0f}us {s['p90_us']:>10.0f}us {s['n']:>7}")
    print()
    for name, ratio in report["ratios"].items():
        print(f"{name:34} {ratio:>6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--passes", type=int, default=5, help="replays of the captured game per way (default 5)")
    parser.add_argument("--starts", type=int, default=30, help="start-ups measured per way (default 30)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()
    report = run(args.passes, args.starts)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
