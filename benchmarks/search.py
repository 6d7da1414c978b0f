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
    args = parser.parse_args(argv)
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
