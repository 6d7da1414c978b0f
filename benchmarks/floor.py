"""The floor under a sandboxed decision: what one round trip between two processes costs on this machine.

A sandboxed bot is a process of its own: every decision is at least one message to it and one reply back. This
measures that floor without any of Ludus's own work, in two forms, each with the two processes on different CPUs
and on the same CPU:

- `pipe`: one byte there and back over two pipes (the kernel's wake-ups alone);
- `json`: a real decide message of a 4-player Evolution game (a view patch, as protocol 2 sends it) written as a
  line, read and parsed by the other process with json, and a reply line parsed back: the least any Python bot
  reading lines of JSON can cost, before Ludus's SDK, views, clock, sandbox or log.

Each repetition times `--trips` round trips; the table gives the median µs a round trip over `--reps` repetitions,
with the spread. docs/scaling.md uses these to say which throughput targets a process per seat can reach.

    python -m benchmarks.floor
    python -m benchmarks.floor --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any


def decide_line() -> bytes:
    """A decide message from the middle of a real 4-player Evolution game, with the patch since the seat's last
    view, as a line."""
    from engine import load_game, protocol
    from engine.bots import make_bot

    game = load_game("evolution")
    state = game.new_state(4, 7, game.validate_options({}))
    bots = [make_bot("greedy", "evolution", seat) for seat in range(4)]
    last: dict[int, Any] = {}
    line = b""
    for seq in range(1, 200):
        decision = state.decision()
        assert decision is not None, "the game ended before its 200th decision"
        view = state.view(decision.seat)
        patch = protocol.view_patch(last[decision.seat], view) if decision.seat in last else None
        clock = {"move_ms": 1000, "bank_ms": 10000}
        line = protocol.encode(protocol.decide(seq, view, decision, clock, patch))
        last[decision.seat] = view
        state.choose(bots[decision.seat].act(view, decision))
    return line


def _echo_byte(read: Any, write: Any) -> None:
    while data := os.read(read, 64):
        os.write(write, data)


def _echo_json(read: Any, write: Any) -> None:
    lines, out = os.fdopen(read, "rb"), os.fdopen(write, "wb")
    for line in lines:
        message = json.loads(line)
        out.write(json.dumps({"type": "reply", "seq": message["seq"], "choice": 0}).encode() + b"\n")
        out.flush()


def round_trip_us(kind: str, same_cpu: bool, trips: int, line: bytes) -> float:
    """µs a round trip, the parent and a forked child pinned to one CPU (same_cpu) or to two."""
    cpus = sorted(os.sched_getaffinity(0))
    mine, theirs = cpus[0], cpus[0] if same_cpu else cpus[-1]
    from_parent, to_child = os.pipe()
    from_child, to_parent = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: echo until the parent closes its end, and never return into main()
        code = 1
        try:
            os.close(from_child)
            os.close(to_child)
            os.sched_setaffinity(0, {theirs})
            (_echo_byte if kind == "pipe" else _echo_json)(from_parent, to_parent)
            code = 0
        finally:
            os._exit(code)
    os.close(from_parent)
    os.close(to_parent)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {mine})
    replies = os.fdopen(from_child, "rb")
    try:
        trip: Callable[[], object]
        if kind == "pipe":
            def trip() -> object:
                os.write(to_child, b"x")
                return os.read(from_child, 64)
        else:
            def trip() -> object:
                os.write(to_child, line)
                return json.loads(replies.readline())["choice"]
        for _ in range(100):  # warm both processes up
            trip()
        start = time.perf_counter()
        for _ in range(trips):
            trip()
        return (time.perf_counter() - start) / trips * 1e6
    finally:
        os.close(to_child)
        os.waitpid(pid, 0)
        replies.close()
        os.sched_setaffinity(0, before)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--trips", type=int, default=3000)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    if len(os.sched_getaffinity(0)) < 2:
        parser.error("needs two CPUs to compare different CPUs with one")
    line = decide_line()
    cases = [(kind, same) for kind in ("pipe", "json") for same in (False, True)]
    samples: dict[str, list[float]] = {f"{kind}_{'same' if same else 'two'}_cpu": [] for kind, same in cases}
    for _ in range(args.reps):  # the cases interleaved, so a busy spell of the machine touches all of them
        for kind, same in cases:
            samples[f"{kind}_{'same' if same else 'two'}_cpu"].append(round_trip_us(kind, same, args.trips, line))
    report = {"decide_bytes": len(line), "trips": args.trips, "reps": args.reps,
              "us_per_round_trip": {name: {"median": statistics.median(values), "min": min(values),
                                           "max": max(values)} for name, values in samples.items()}}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"round trip between two processes, µs (median, min-max over {args.reps} x {args.trips} trips); "
              f"the decide line is {len(line)} bytes")
        for name, row in report["us_per_round_trip"].items():
            print(f"  {name:<15} {row['median']:7.1f}   {row['min']:.1f}-{row['max']:.1f}")
    return report


if __name__ == "__main__":
    main()
