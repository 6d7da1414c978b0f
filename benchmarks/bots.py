"""What the built-in bots cost: CPU µs per decision of `greedy` and `greedy_eps30`, µs per deep copy of a bot
(replays/analysis.py copies its walkers for each playout) and CPU ms per whole game (views and engine included),
over the same seeded games, optionally paired against a baseline checkout.

Games: `--games` seeded games per case (greedy against greedy_eps30, seats alternating, default options). Each
repetition, in a process of its own, plays every game with each answer timed as it is given, the seat's view just
built as in a match (CPU time, less the cost of reading the clock), deep-copies the bots COPIES times at the 200th
decision, then plays the game again whole (views and engine included). With `--baseline DIR` repetitions of this
checkout and the baseline alternate, each in a process run with PYTHONPATH set to its checkout, and the table
gives both medians (lowest-highest over the repetitions) and the ratio of the medians. Each checkout's digest of
the choices is printed too: a faster bot must choose alike.

    python -m benchmarks.bots                                  # this checkout
    python -m benchmarks.bots --baseline /work/base --reps 7   # paired with another checkout
    python -m benchmarks.bots --game marine --json
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = [("evolution", 2), ("evolution", 4), ("evolution", 6), ("marine", 2), ("marine", 4)]
LINEUP = ("greedy", "greedy_eps30")
COPIES = 20  # deep copies timed per game, at its middle decision


def timer_overhead() -> float:
    """CPU seconds that one pair of process_time() calls adds to a timed call (the lowest of a few tries)."""
    tries = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(2000):
            time.process_time() - time.process_time()
        tries.append((time.process_time() - start) / 2000)
    return min(tries)


def play_timed(game_name: str, players: int, seed: int) -> dict[str, Any]:
    """One game of seeded bots: each bot's answers timed as it gives them (the view just built, as in a match),
    the bots deep-copied COPIES times at the middle decision; the choices, CPU seconds and counts."""
    from engine.bots import make_bot
    from engine.cli.common import bot_seed
    from engine.registry import load_game

    game = load_game(game_name)
    state = game.new_state(players, seed, game.validate_options({}))
    lineup = [LINEUP[(s + seed) % len(LINEUP)] for s in range(players)]
    bots = [make_bot(name, game_name, bot_seed(seed, s)) for s, name in enumerate(lineup)]
    spent = {name: [0.0, 0] for name in lineup}
    choices: list[int] = []
    copy_cpu = None
    while (decision := state.decision()) is not None:
        if copy_cpu is None and len(choices) == 200:
            start = time.process_time()
            for _ in range(COPIES):
                copy.deepcopy(bots)
            copy_cpu = time.process_time() - start
        view = state.view(decision.seat)
        start = time.process_time()
        choice = bots[decision.seat].act(view, decision)
        took = time.process_time() - start
        total = spent[lineup[decision.seat]]
        total[0], total[1] = total[0] + took, total[1] + 1
        choices.append(choice)
        state.choose(choice)
    return {"choices": choices, "lineup": lineup, "spent": spent, "copy_cpu": copy_cpu or 0.0,
            "copies": COPIES * players}


def measure_once(games: int, seed: int, only: list[str]) -> dict[str, Any]:
    """One repetition in this process: per case, µs per decision by bot, µs per bot copy, ms per game, digest."""
    from engine.cli.simulate import play_one
    from engine.registry import load_game

    overhead = timer_overhead()
    rows: dict[str, Any] = {}
    for game_name, players in CASES:
        if only and game_name not in only:
            continue
        spent: dict[str, list[float]] = {}
        copies, digest, game_cpu = [0.0, 0], hashlib.sha256(), 0.0
        for index in range(games):
            played = play_timed(game_name, players, seed + index)
            digest.update(json.dumps(played["choices"]).encode())
            for name, (cpu, count) in played["spent"].items():
                total = spent.setdefault(name, [0.0, 0])
                total[0], total[1] = total[0] + cpu - count * overhead, total[1] + count
            copies = [copies[0] + played["copy_cpu"], copies[1] + played["copies"]]
            game = load_game(game_name)
            start = time.process_time()
            play_one(game, players, seed + index, game.validate_options({}), played["lineup"])
            game_cpu += time.process_time() - start
        rows[f"{game_name} {players}p"] = {
            **{f"{name} µs/decision": 1e6 * cpu / count for name, (cpu, count) in sorted(spent.items())},
            "copy µs/bot": 1e6 * copies[0] / copies[1], "game ms": 1000 * game_cpu / games,
            "digest": digest.hexdigest()[:16]}
    return rows


def run_in(checkout: Path, games: int, seed: int, only: list[str]) -> dict[str, Any]:
    """One repetition in a fresh process importing the engine of `checkout` (-P: not this script's folder, whose
    engine.py would hide the engine package)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--once", "--games", str(games),
               "--seed", str(seed), *[f"--game={g}" for g in only]]
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{checkout}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def summarise(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """Per case and measure: the median and the lowest and highest over the repetitions."""
    out: dict[str, Any] = {}
    for case, first in reps[0].items():
        out[case] = {"digest": first["digest"]}
        for measure in first:
            if measure != "digest":
                values = [rep[case][measure] for rep in reps]
                out[case][measure] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def table(results: dict[str, dict[str, Any]]) -> str:
    names = list(results)
    lines = []
    for case, row in results[names[0]].items():
        lines.append(f"{case}  digest " + " / ".join(f"{n} {results[n][case]['digest']}" for n in names))
        for measure, stats in row.items():
            if measure == "digest":
                continue
            cells = [f"{n} {results[n][case][measure]['median']:.1f} "
                     f"({results[n][case][measure]['min']:.1f}-{results[n][case][measure]['max']:.1f})"
                     for n in names]
            ratio = ""
            if len(names) == 2:
                ratio = f"  baseline/this {results[names[1]][case][measure]['median'] / stats['median']:.2f}x"
            lines.append(f"  {measure:<24} " + "   ".join(cells) + ratio)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="seeded games per case")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit, measured alternately")
    parser.add_argument("--game", action="append", default=[], help="only this game (repeatable)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # one repetition, JSON on stdout
    args = parser.parse_args(argv)
    if args.once:
        print(json.dumps(measure_once(args.games, args.seed, args.game)))
        return 0
    checkouts = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    reps: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for _ in range(args.reps):
        for name, checkout in checkouts.items():
            reps[name].append(run_in(checkout, args.games, args.seed, args.game))
    results = {name: summarise(runs) for name, runs in reps.items()}
    print(json.dumps(results, indent=1) if args.json else table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
