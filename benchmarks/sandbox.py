"""What the sandbox costs: the per-decision round trip and the start-up of a seat, sandboxed against bare, with and
without the seat's control group and freezer, and against a baseline checkout.

The messages are real: one 3-player Evolution game between random bots is played, and every decision becomes the
`decide` line a bot would get (its seat's view included). They are replayed to an echo bot (the SDK answering
option 0 at once), interleaved pass by pass so that a busy machine slows every way alike:

- bare pipe:      `python3 -S echo.py`, a minimal write-line / read-line loop on pre-encoded messages;
- bwrap pipe:     the same loop and script, started under bwrap exactly as a seat is (same argv, uid, rlimits);
- seat rows:      `SandboxedSeat` itself (benchmarks/seat_driver.py, one process per pass and way): start-up to the
                  first reply, `decide` per decision, and a 4-seat match's start (to every seat's first reply) and
                  stop; for this checkout with its groups and freezer (`cgroups=required`), without them
                  (`cgroups=off`), and for each `--baseline` checkout as it is;

and, apart, the engine's cost of building and encoding each decide line, which the seat rows include.

    python -m benchmarks.sandbox                                   # table
    python -m benchmarks.sandbox --json                            # one JSON object
    python -m benchmarks.sandbox --baseline /tmp/main --passes 7   # and another checkout, side by side
    python -m benchmarks.sandbox --language cpp --language java      # per-language seats, against Python's
                                                                   # (benchmarks/languages.py)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.languages import print_languages, run_languages
from benchmarks.seat_driver import capture
from engine import protocol
from engine.core import Decision
from tournaments.languages import LANGUAGES
from workers.sandbox.bwrap import SANDBOX_ENV, UidLease, bwrap_command, find_interpreter, spawn
from workers.sandbox.config import SandboxConfig
from workers.sandbox.unpacking import SDK_SOURCE

ECHO_BOT = b"import ludus\nludus.run(lambda view, decision: 0)\n"
CLOCK = {"move_ms": 1000, "bank_ms": 10_000}
TARGET_ROUND_TRIP_RATIO = 1.5  # a seat's decide against a bare pipe
TARGET_START_RATIO = 2.0
TARGET_GROUPS_ROUND_TRIP = 1.1  # groups and freezer against the baseline's seat
TARGET_GROUPS_START = 1.2
ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).resolve().parent / "seat_driver.py"
Captured = list[tuple[int, dict[str, Any], Decision]]


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
        return spawn(self.argv(kind, program), uid, self.config.rlimits(), env,
                     str(self.bot) if kind == "bare" else "/", renumbered=kind != "bare")

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
    return {"median_us": statistics.median(ordered) * 1e6, "p10_us": ordered[int(len(ordered) * 0.1)] * 1e6,
            "p90_us": ordered[int(len(ordered) * 0.9)] * 1e6, "n": len(ordered)}


def seat_ways(baselines: list[Path]) -> dict[str, tuple[Path, dict[str, Any]]]:
    """The seat rows: this checkout with and without groups and freezer, and each baseline as it is."""
    ways = {"groups+freezer": (ROOT, {"cgroups": "required"}), "no groups": (ROOT, {"cgroups": "off"})}
    ways.update({f"baseline {path.name}": (path, {}) for path in baselines})
    return ways


def seat_samples(root: Path, config: dict[str, Any], starts: int, matches: int) -> dict[str, list[float]]:
    """One pass of benchmarks/seat_driver.py on a checkout, in a process of its own."""
    done = subprocess.run([sys.executable, str(DRIVER), "--root", str(root), "--config", json.dumps(config),
                           "--starts", str(starts), "--games", "1", "--matches", str(matches)],
                          capture_output=True, text=True, cwd=root, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the seat driver failed on {root}: {done.stderr[-2000:]}")
    samples: dict[str, list[float]] = json.loads(done.stdout)
    return samples


def seats_interleaved(baselines: list[Path], passes: int, starts: int, matches: int) -> dict[str, Any]:
    """Per pass, every way in turn; the samples of all passes pooled per way and measure."""
    ways = seat_ways(baselines)
    pooled: dict[str, dict[str, list[float]]] = {name: {} for name in ways}
    for _ in range(passes):
        for name, (root, config) in ways.items():
            for measure, values in seat_samples(root, config, starts, matches).items():
                pooled[name].setdefault(measure, []).extend(values)
    return {name: {measure: summary(values) for measure, values in found.items()} for name, found in pooled.items()}


SPEEDS = ("start", "round_trip", "hand_off", "match_start", "match_stop")  # compared as ratios
# How far past what the tests assert the clock goes (benchmarks/seat_driver.py): the worker's share charged to a
# bot that sleeps 50 ms, how long past its limit a timed-out decide returns, and how much past its limit it is charged.
OVERSHOOTS = ("charged_over", "timeout_over", "timeout_charged_over")


def seat_ratios(seats: dict[str, Any]) -> dict[str, float]:
    """Groups+freezer over each other way, per speed (medians)."""
    ours = seats["groups+freezer"]
    return {f"groups+freezer / {other}: {measure}": ours[measure]["median_us"] / found[measure]["median_us"]
            for other, found in seats.items() if other != "groups+freezer"
            for measure in SPEEDS if measure in found}


def run(passes: int, starts: int, baselines: list[Path]) -> dict[str, Any]:
    decisions = capture()
    lines = [protocol.encode(protocol.decide(seq, view, d, CLOCK)) for seq, view, d in decisions]
    with tempfile.TemporaryDirectory(prefix="ludus-bench-") as tmp:
        bench = Bench(Path(tmp))
        round_trips = interleaved({
            "bare pipe": lambda: pipe_round_trips(bench, "bare", lines),
            "bwrap pipe": lambda: pipe_round_trips(bench, "bwrap", lines),
            "encode decide (in the seat rows)": lambda: encode_times(decisions),
        }, passes)
        start_ups = interleaved({
            "bare: python3 -S -c pass": lambda: [start_empty(bench, "bare")],
            "bwrap: python3 -S -c pass": lambda: [start_empty(bench, "bwrap")],
            "bare: echo bot to first reply": lambda: [start_to_first_reply(bench, "bare", lines[0])],
            "bwrap: echo bot to first reply": lambda: [start_to_first_reply(bench, "bwrap", lines[0])],
        }, starts)
        if bench.lease:
            bench.lease.release()
    seats = seats_interleaved(baselines, passes, max(1, starts // passes), 2)
    rt = {name: summary(s) for name, s in round_trips.items()}
    st = {name: summary(s) for name, s in start_ups.items()}
    bare_rt, bare_st = rt["bare pipe"]["median_us"], st["bare: echo bot to first reply"]["median_us"]
    sizes = sorted(len(line) for line in lines)
    return {
        "messages": {"count": len(lines), "median_bytes": sizes[len(sizes) // 2], "max_bytes": sizes[-1]},
        "round_trip": rt,
        "start": st,
        "seats": seats,
        "ratios": {
            "bwrap pipe / bare pipe": rt["bwrap pipe"]["median_us"] / bare_rt,
            "seat / bare pipe": seats["groups+freezer"]["round_trip"]["median_us"] / bare_rt,
            "bwrap start / bare start": st["bwrap: echo bot to first reply"]["median_us"] / bare_st,
            "seat start / bare start": seats["groups+freezer"]["start"]["median_us"] / bare_st,
            "bwrap empty / bare empty": st["bwrap: python3 -S -c pass"]["median_us"]
            / st["bare: python3 -S -c pass"]["median_us"],
            **seat_ratios(seats),
        },
        "targets": {"round_trip": TARGET_ROUND_TRIP_RATIO, "start": TARGET_START_RATIO,
                    "groups+freezer / baseline: round_trip": TARGET_GROUPS_ROUND_TRIP,
                    "groups+freezer / baseline: start": TARGET_GROUPS_START},
        "python": sys.version.split()[0], "interpreter": find_interpreter().executable, "cpus": os.cpu_count(),
    }


def _rows(title: str, rows: dict[str, dict[str, float]]) -> None:
    print(f"\n{title:44} {'median':>12} {'p10':>12} {'p90':>12} {'n':>7}")
    for name, s in rows.items():
        print(f"{name:44} {s['median_us']:>10.0f}us {s['p10_us']:>10.0f}us {s['p90_us']:>10.0f}us {s['n']:>7}")


def print_table(report: dict[str, Any]) -> None:
    m = report["messages"]
    print(f"{m['count']} real Evolution decide messages (median {m['median_bytes']} B, max {m['max_bytes']} B), "
          f"sandbox interpreter {report['interpreter']}")
    _rows("round trip per decision", report["round_trip"])
    _rows("start-up", report["start"])
    for measure in SPEEDS + OVERSHOOTS:
        _rows(f"seat: {measure.replace('_', ' ')}",
              {way: found[measure] for way, found in report["seats"].items() if measure in found})
    print()
    for name, ratio in report["ratios"].items():
        print(f"{name:60} {ratio:>6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--passes", type=int, default=5, help="replays of the captured game per way (default 5)")
    parser.add_argument("--starts", type=int, default=30, help="start-ups measured per way (default 30)")
    parser.add_argument("--baseline", type=Path, action="append", default=[],
                        help="a checkout of another commit whose seat is measured side by side (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--language", action="append", default=[], choices=list(LANGUAGES),
                        help="a language's starter kit against Python's (repeatable; benchmarks/languages.py)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the --language measurement (default 5)")
    args = parser.parse_args()
    if args.language:
        found = run_languages(args.language, args.rounds)
        print(json.dumps(found, indent=2)) if args.json else print_languages(found)
        return
    report = run(args.passes, args.starts, [path.resolve() for path in args.baseline])
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
