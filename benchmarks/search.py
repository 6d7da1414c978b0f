"""What a search bot pays for the engine API: clone µs, determinizations per second, random playouts and greedy
rollouts per second from the middle of a 2-player game, for both games, on one core.

Positions: `--positions` seeded random 2-player games (default options), each stopped at the decision halfway
through it. At each position and in each of `--reps` repetitions: `--clones` clones, `--determinizations`
determinizations of the deciding seat (Game.determinize from its view, history and context) and `--playouts`
random playouts (a clone played to the end by uniform random choices), and as many greedy rollouts (a clone played
on for 30 decisions by the built-in greedy bot, a view per decision). The table gives the median over the
repetitions of the per-position rates (by wall clock and by CPU time, which a busy machine does not inflate) with
the lowest and highest. Games without `determinize` (a checkout from before it) skip that column, so the same
script measures a baseline checkout: `cd ../base && PYTHONPATH=. python ../wt/benchmarks/search.py`.

    python -m benchmarks.search                # table
    python -m benchmarks.search --json         # one JSON object
    python -m benchmarks.search --profile 15   # plus a cProfile top-15 of Evolution playouts
    python -m benchmarks.search --sandbox 5    # inside the real sandbox, as an uploaded bot (5 start-ups each way)

`--sandbox N` uploads bots to the real sandbox (workers.sandbox.seat.SandboxedSeat, its control group and CPU quota of
one core included) instead: a probe bot that, at its first decide, imports the engine and times random playouts
and greedy rollouts from the same mid-game positions with the engine bound in the seat, reporting by its log; and
N start-ups each of a bot that only answers (the SDK alone) and of one that imports the engine, greedy and both
games at its top, alternated: seat start to first reply (wall ms) and the seat's peak memory (ru_maxrss).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.engine import pin_to_one_core
from engine.bots import make_bot
from engine.core import Game, State
from engine.registry import game_names, load_game

TARGET_PLAYOUTS_PER_SEC = 200  # a 2-player Evolution game from its middle
GREEDY_HORIZON = 30


def middle(game: Game, seed: int) -> tuple[State, int, list[Any]]:
    """A seeded random 2-player game stopped halfway: the state, the deciding seat and that seat's history."""
    state = game.new_state(2, seed)
    rng = random.Random(seed)
    choices = []
    while (decision := state.decision()) is not None:
        choices.append(rng.randrange(len(decision.options)))
        state.choose(choices[-1])
    state, history = game.new_state(2, seed), [[], []]  # type: ignore[var-annotated]
    seat_events = getattr(game, "seat_events", None)
    for choice in choices[:len(choices) // 2]:
        events = state.choose(choice)
        for seat in range(2):
            history[seat] += seat_events(seat, events) if seat_events else events
    decision = state.decision()
    assert decision is not None
    return state, decision.seat, history[decision.seat]


def playout(state: State, rng: random.Random) -> None:
    state = state.clone()
    while (decision := state.decision()) is not None:
        state.choose(rng.randrange(len(decision.options)))


def greedy_rollout(game: Game, state: State, seed: int) -> None:
    """A clone played on by the built-in greedy bot for every seat (a view per decision), GREEDY_HORIZON decisions:
    the rollout a search bot on top of greedy makes."""
    state = state.clone()
    bots = [make_bot("greedy", game.name, seed + seat) for seat in range(2)]
    for _ in range(GREEDY_HORIZON):
        decision = state.decision()
        if decision is None:
            return
        state.choose(bots[decision.seat].act(state.view(decision.seat), decision))


def rate(work: Callable[[int], None], count: int) -> tuple[float, float]:
    """Calls per second of work(i) for i in range(count), by wall clock and by CPU time."""
    start, start_cpu = time.perf_counter(), time.process_time()
    for i in range(count):
        work(i)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return count / wall, (count / cpu if cpu > 0 else 0.0)


def measure(game_name: str, positions: int, reps: int, clones: int, dets: int, playouts: int) -> dict[str, Any]:
    game = load_game(game_name)
    found: dict[str, list[float]] = {k: [] for k in ("clone", "clone_cpu", "det", "det_cpu", "playout",
                                                     "playout_cpu", "greedy", "greedy_cpu")}
    for rep in range(reps):
        per: dict[str, list[float]] = {k: [] for k in found}
        for seed in range(positions):
            state, seat, history = middle(game, seed)
            rates = at_position(game, state, seat, history, random.Random(rep * 1000 + seed), (clones, dets, playouts))
            for key, pair in rates.items():
                per[key].append(pair[0])
                per[key + "_cpu"].append(pair[1])
        for key, values in per.items():
            if values:
                found[key].append(statistics.median(values))
    out: dict[str, Any] = {"game": game_name, "players": 2, "positions": positions, "reps": reps}
    for key, values in found.items():
        if values:
            scale = 1e6 if key.startswith("clone") else 1.0
            as_us = key.startswith("clone")  # clone: µs per clone, not clones per second
            pick = [scale / v if as_us else v for v in values]
            name = key.replace("clone", "clone_us").replace("det", "determinizations_per_sec").replace(
                "playout", "playouts_per_sec").replace("greedy", "greedy_rollouts_per_sec")
            out[name] = round(statistics.median(pick), 1)
            out[name + "_min"], out[name + "_max"] = round(min(pick), 1), round(max(pick), 1)
    return out


def at_position(game: Game, state: State, seat: int, history: list[Any], rng: random.Random,
                counts: tuple[int, int, int]) -> dict[str, tuple[float, float]]:
    """(wall, CPU) rates at one position: clones, determinizations (where the checkout has them), playouts."""
    clones, dets, playouts = counts
    rates = {"clone": rate(lambda i: None if state.clone() is None else None, clones)}
    if hasattr(game, "determinize") and hasattr(state, "seat_context"):
        view, context = state.view(seat), state.seat_context(seat)
        rates["det"] = rate(lambda i: None if game.determinize(seat, view, history, i, context) else None, dets)
    rates["playout"] = rate(lambda i: playout(state, rng), playouts)
    rates["greedy"] = rate(lambda i: greedy_rollout(game, state, i), playouts)
    return rates


SANDBOX_CLOCK = {"move_ms": 600_000, "bank_ms": 0}  # the probe's one decide takes seconds
REPORT = """
def act(view, decision):
    import json, resource
    print("REPORT " + json.dumps({"maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, **measured()}))
    return 0

ludus.run(act)
"""
SDK_ALONE = "import ludus\n\ndef measured():\n    return {}\n" + REPORT
WITH_ENGINE = ("import ludus\nimport engine.bots.greedy, engine.registry\n"
               "GAMES = [engine.registry.load_game(n) for n in ('evolution', 'marine')]\n\n"
               "def measured():\n    return {}\n" + REPORT)


def probe_source(positions: int, playouts: int) -> bytes:
    """The probe bot: this module's own position, playout and rollout code, run in the sandbox at its first decide."""
    import inspect

    parts = [inspect.getsource(f) for f in (middle, playout, greedy_rollout)]
    return ("from __future__ import annotations\nimport random, time\nfrom typing import Any\nimport ludus\n"
            "from engine.bots import make_bot\nfrom engine.core import Game, State\n"
            f"GREEDY_HORIZON = {GREEDY_HORIZON}\n\n" + "\n\n".join(parts) + f"""

def measured():
    from engine.registry import load_game
    out = {{}}
    for name in ("evolution", "marine"):
        game = load_game(name)
        rng = random.Random(0)
        ways = (("playouts", lambda s, i: playout(s, rng)), ("greedy", lambda s, i: greedy_rollout(game, s, i)))
        for kind, work in ways:
            wall = cpu = 0.0
            for seed in range({positions}):
                state = middle(game, seed)[0]
                t, c = time.perf_counter(), time.process_time()
                for i in range({playouts}):
                    work(state, i)
                wall, cpu = wall + time.perf_counter() - t, cpu + time.process_time() - c
            out[f"{{name}}_{{kind}}_per_sec"] = round({positions * playouts} / wall, 1)
            out[f"{{name}}_{{kind}}_per_sec_cpu"] = round({positions * playouts} / cpu, 1)
    return out
""" + REPORT).encode()


def in_sandbox(source: bytes) -> tuple[float, dict[str, Any]]:
    """Upload source to a seat of its own: seconds from the seat's start to its first reply, and its report."""
    from engine import protocol
    from engine.core import Decision
    from workers.sandbox.seat import SandboxedSeat

    seat = SandboxedSeat(source, "main.py")
    started = time.perf_counter()
    seat.start(protocol.hello("evolution", load_game("evolution").rules_version, 0, 2, {}, SANDBOX_CLOCK))
    reply = seat.decide(1, {}, Decision(seat=0, kind="probe", options=[0, 1]), 0)
    elapsed = time.perf_counter() - started
    seat.finish({})
    log = seat.log()
    seat.close()
    if reply.fault is not None or "REPORT " not in log:
        raise RuntimeError(f"the probe bot failed in the sandbox: {reply.fault} {log[-2000:]}")
    return elapsed, json.loads(log.split("REPORT ", 1)[1].splitlines()[0])


def sandboxed(starts: int, positions: int, playouts: int) -> dict[str, Any]:
    """Rates inside the sandbox, and start-up and peak memory of a seat with and without the engine imported."""
    _, rates = in_sandbox(probe_source(positions, playouts))
    runs: dict[str, list[tuple[float, dict[str, Any]]]] = {"sdk_alone": [], "with_engine": []}
    for _ in range(starts):  # alternated, so a busy host slows both alike
        runs["sdk_alone"].append(in_sandbox(SDK_ALONE.encode()))
        runs["with_engine"].append(in_sandbox(WITH_ENGINE.encode()))
    seats = {way: {"start_ms": round(statistics.median(t for t, _ in found) * 1000),
                   "start_ms_range": [round(min(t for t, _ in found) * 1000), round(max(t for t, _ in found) * 1000)],
                   "maxrss_mib": round(statistics.median(r["maxrss_kib"] for _, r in found) / 1024, 1)}
             for way, found in runs.items()}
    return {"positions": positions, "playouts": playouts, "rates": rates, "seats": seats}


def profile_top(top: int) -> str:
    game = load_game("evolution")
    state, _, _ = middle(game, 0)
    rng = random.Random(0)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(100):
        playout(state, rng)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--clones", type=int, default=500)
    parser.add_argument("--determinizations", type=int, default=100)
    parser.add_argument("--playouts", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", type=int, default=0)
    parser.add_argument("--sandbox", type=int, default=0, metavar="STARTS",
                        help="measure inside the real sandbox instead, with this many start-ups each way")
    args = parser.parse_args(argv)
    if args.sandbox:
        found = sandboxed(args.sandbox, args.positions, args.playouts)
        print(json.dumps(found, indent=2) if args.json else
              f"in the sandbox, {found['positions']} positions x {found['playouts']}: {found['rates']}\n"
              f"seat start to first reply and peak memory (median of {args.sandbox}): {found['seats']}")
        return 0
    cpu = pin_to_one_core()
    rows = [measure(name, args.positions, args.reps, args.clones, args.determinizations, args.playouts)
            for name in game_names() if name in ("evolution", "marine")]
    if args.json:
        print(json.dumps({"cpu": cpu, "results": rows}, indent=2))
    else:
        print(f"one core (cpu {cpu}); median over {args.reps} reps of {args.positions} mid-game positions "
              "[lowest-highest]")
        for row in rows:
            cells = [f"{row['game']:10}"]
            for key, unit in (("clone_us", "µs clone"), ("determinizations_per_sec", "determinizations/s"),
                              ("playouts_per_sec", "playouts/s"), ("playouts_per_sec_cpu", "playouts/s (CPU)"),
                              ("greedy_rollouts_per_sec_cpu", f"greedy {GREEDY_HORIZON}-decision rollouts/s (CPU)")):
                if key in row:
                    cells.append(f"{row[key]:>9} [{row[key + '_min']}-{row[key + '_max']}] {unit}")
            print("  ".join(cells))
        evo = next((r for r in rows if r["game"] == "evolution"), None)
        if evo:
            # by CPU time: on a shared machine the wall-clock rate measures the other processes too
            verdict = "meets" if evo["playouts_per_sec_cpu"] >= TARGET_PLAYOUTS_PER_SEC else "misses"
            print(f"evolution {verdict} the target of {TARGET_PLAYOUTS_PER_SEC} playouts/s from mid-game (CPU time; "
                  f"{evo['playouts_per_sec']} by the wall clock of this run)")
    if args.profile:
        print(profile_top(args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
