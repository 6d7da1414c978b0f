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

Beside the floor, `parts` is what Ludus adds to it in a decision, each part timed alone in this process (CPU µs a
decision, the least of `--reps` passes over the decisions of `--games` recorded games of benchmarks/match.py's
match: 4-player Evolution, the example bot in every seat). The worker's: the seat's view and its patch from the
view it was sent last, as a sandboxed seat takes them from the game (`seat_patch`: State.seat_patch), the decide
message written as a line (`encode`), the reply line read (`reply`); the SDK's, over the lines the worker writes:
its whole loop (`sdk_run`: `engine.sdk.run` over the same lines with an act that returns 0), and two parts of it
timed alone, the decide line parsed as `run` parses it (`sdk_parse`: json's scanner) and act's view made from the
patch (`sdk_view`: the check that act left its last view alone, and the patch on act's view). What a decision costs
in `python -m benchmarks.match` beyond the floor and these parts is the worker's loop around them (the clock, the
CPU counters, the log's step mark, the hand-offs), the kernel's side of the seats' processes, and cold caches: five
processes take turns on one CPU.

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


def recorded_games(games: int) -> list[tuple[int, list[int]]]:
    """The seeds and choices of games 4-player Evolution games between copies of the example bot, seeds 1, 2, ...
    as benchmarks/match.py plays them."""
    from pathlib import Path

    from benchmarks.match_driver import example_act
    from engine import load_game

    act = example_act(Path(__file__).resolve().parent.parent / "examples" / "bots" / "evolution_bot.py")
    game = load_game("evolution")
    played = []
    for seed in range(1, games + 1):
        state, choices = game.new_state(4, seed, game.validate_options({})), []
        while (decision := state.decision()) is not None:
            choices.append(act(state.view(decision.seat), {"kind": decision.kind, "options": list(decision.options),
                                                           "prompt": decision.prompt}))
            state.choose(choices[-1])
        played.append((seed, choices))
    return played


def decision_parts(games: int, reps: int) -> dict[str, float]:
    """CPU µs a decision of each part of a decision that Ludus adds to the floor, timed alone (see the module's doc)."""
    import gc
    import io
    import marshal

    from engine import load_game, protocol, sdk
    from workers.sandbox.pipes import encode_line
    from workers.sandbox.seat import MAX_PATCH_OPS

    game, played = load_game("evolution"), recorded_games(games)
    clock = {"move_ms": 1000, "bank_ms": 10000}
    decides: list[tuple[int, Any, Any, Any]] = []  # seq, decision, view, patch (copies: seat_patch keeps its view)
    streams = [[protocol.encode(protocol.hello("evolution", "1", seat, 4, {}, clock)) for seat in range(4)]
               for _ in played]

    def replay(seed: int, choices: list[int], patches: bool) -> Any:
        state, sent = game.new_state(4, seed, game.validate_options({})), [None] * 4
        for choice in choices:
            if patches:
                seat = state.decision().seat
                _, _, sent[seat] = state.seat_patch(seat, sent[seat], MAX_PATCH_OPS)
            state.choose(choice)
        return state

    for number, (seed, choices) in enumerate(played):
        state, sent = game.new_state(4, seed, game.validate_options({})), [None] * 4
        for seq, choice in enumerate(choices, 1):
            decision = state.decision()
            view, patch, sent[decision.seat] = state.seat_patch(decision.seat, sent[decision.seat], MAX_PATCH_OPS)
            view, patch = marshal.loads(marshal.dumps(view)), marshal.loads(marshal.dumps(patch))
            decides.append((seq, decision, view, patch))
            streams[number][decision.seat] += encode_line(protocol.decide(seq, view, decision, clock, patch))
            state.choose(choice)
    lines = [stream for per_game in streams for stream in per_game]
    count, reply = len(decides), b'{"seq":7,"choice":0}'
    messages: list[list[Any]] = []

    def parse_all() -> None:
        messages[:] = [[json.loads(line) for line in stream.splitlines()[1:]] for stream in lines]

    def sdk_views() -> None:
        for stream in messages:
            view: Any = None
            given: Any = None
            for message in stream:
                if "view" in message:
                    view, given = message["view"], sdk._copy(message["view"])
                elif given == view:
                    view, given = sdk._patch_pair(view, given, message["patch"])

    timed: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
        "seat_patch": (lambda: [replay(seed, choices, True) for seed, choices in played],
                       lambda: [replay(seed, choices, False) for seed, choices in played]),
        "encode": (lambda: [encode_line(protocol.decide(seq, view, decision, clock, patch))
                            for seq, decision, view, patch in decides], list),
        "reply": (lambda: [protocol.parse_reply(reply, 7, 3) for _ in range(count)], lambda: list(range(count))),
        "sdk_parse": (lambda: [sdk._scan(line.decode(), 0)[1] for stream in lines for line in stream.splitlines()],
                      lambda: [len(line.decode()) for stream in lines for line in stream.splitlines()]),
        "sdk_view": (sdk_views, list),
        "sdk_run": (lambda: [sdk.run(lambda view, decision: 0, stdin=io.BytesIO(stream), stdout=io.BytesIO())
                             for stream in lines], list),
    }

    def least(run: Callable[[], object], without: Callable[[], object]) -> float:
        """The least CPU of reps passes of run, less the least of without (what run does besides the part)."""
        runs, besides = [], []
        for _ in range(reps):
            for timing, operation in ((runs, run), (besides, without)):
                parse_all()  # the SDK's parts take fresh messages: applying a patch changes its values' owners
                gc.collect()
                gc.freeze()  # what this benchmark keeps is not scanned by the collections the part's own work makes
                start = time.process_time()
                operation()
                timing.append(time.process_time() - start)
                gc.unfreeze()
        return max(0.0, min(runs) - min(besides)) / count * 1e6

    parts = {name: least(run, without) for name, (run, without) in timed.items()}
    return parts


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
    parser.add_argument("--games", type=int, default=3,
                        help="recorded games whose decisions time Ludus's parts (default 3; 0: none)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    if len(os.sched_getaffinity(0)) < 2:
        parser.error("needs two CPUs to compare different CPUs with one")
    parts = decision_parts(args.games, args.reps) if args.games else {}
    line = decide_line()
    cases = [(kind, same) for kind in ("pipe", "json") for same in (False, True)]
    samples: dict[str, list[float]] = {f"{kind}_{'same' if same else 'two'}_cpu": [] for kind, same in cases}
    for _ in range(args.reps):  # the cases interleaved, so a busy spell of the machine touches all of them
        for kind, same in cases:
            samples[f"{kind}_{'same' if same else 'two'}_cpu"].append(round_trip_us(kind, same, args.trips, line))
    report = {"decide_bytes": len(line), "trips": args.trips, "reps": args.reps,
              "us_per_round_trip": {name: {"median": statistics.median(values), "min": min(values),
                                           "max": max(values)} for name, values in samples.items()},
              "parts_us_per_decision": parts}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"round trip between two processes, µs (median, min-max over {args.reps} x {args.trips} trips); "
              f"the decide line is {len(line)} bytes")
        for name, row in report["us_per_round_trip"].items():
            print(f"  {name:<15} {row['median']:7.1f}   {row['min']:.1f}-{row['max']:.1f}")
        if parts:
            print(f"Ludus's parts of a decision, CPU µs (the least of {args.reps} passes over {args.games} games)")
            for name, us in parts.items():
                print(f"  {name:<15} {us:7.1f}")
    return report


if __name__ == "__main__":
    main()
