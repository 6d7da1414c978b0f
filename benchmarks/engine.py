"""Engine speed: decisions per second and the wall time of a whole game, per registered game, on one core.

For each game: 4-player games (or the game's maximum when it is smaller), first between `random` bots (no views
are built, the engine alone), then between `greedy` bots (a view per decision, as uploaded bots get). Each
repetition plays `--games` games from fixed seeds; the table reports the median over `--reps` repetitions of
decisions/s (by wall clock, and by the process's CPU time, which stays honest on a busy machine) and the median
time of one game.

    python -m benchmarks.engine                  # table
    python -m benchmarks.engine --json           # one JSON object
    python -m benchmarks.engine --profile 10     # plus a cProfile top-10 of random-bot games
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import time
from typing import Any

from engine.cli.simulate import play_one
from engine.registry import game_names, load_game

TARGET_DECISIONS_PER_SEC = 50_000


def pin_to_one_core() -> int | None:
    """Run on a single CPU where the OS allows it; return that CPU or None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def measure(game_name: str, players: int, bot: str, games: int, reps: int, seed: int) -> dict[str, Any]:
    """Median decisions/s over reps (by wall clock and by this process's CPU time, which a busy machine does not
    inflate), and the median wall and CPU time of one game over all games played."""
    game = load_game(game_name)
    options = game.validate_options({})
    rates, cpu_rates, game_times, cpu_times, decisions_per_game = [], [], [], [], []
    for rep in range(reps):
        decisions, wall, cpu = 0, 0.0, 0.0
        for index in range(games):
            start, start_cpu = time.perf_counter(), time.process_time()
            record = play_one(game, players, seed + rep * games + index, options, [bot] * players)
            elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            decisions += len(record.choices)
            wall, cpu = wall + elapsed, cpu + elapsed_cpu
            game_times.append(elapsed)
            cpu_times.append(elapsed_cpu)
            decisions_per_game.append(len(record.choices))
        rates.append(decisions / wall)
        cpu_rates.append(decisions / cpu if cpu > 0 else 0.0)
    return {"game": game_name, "players": players, "bot": bot, "games_per_rep": games, "reps": reps,
            "decisions_per_sec": round(statistics.median(rates)),
            "decisions_per_sec_min": round(min(rates)), "decisions_per_sec_max": round(max(rates)),
            "cpu_decisions_per_sec": round(statistics.median(cpu_rates)),
            "median_game_ms": round(statistics.median(game_times) * 1000, 2),
            "median_game_cpu_ms": round(statistics.median(cpu_times) * 1000, 2),
            "median_decisions_per_game": statistics.median(decisions_per_game)}


def profile_top(game_name: str, players: int, games: int, top: int, seed: int) -> str:
    """cProfile of `games` random-bot games, the top entries by internal time."""
    game = load_game(game_name)
    options = game.validate_options({})
    profiler = cProfile.Profile()
    profiler.enable()
    for index in range(games):
        play_one(game, players, seed + index, options, ["random"] * players)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["game        players  bot     decisions/s (min-max)       CPU decisions/s  median game ms (CPU)"
             "  decisions/game"]
    for r in rows:
        rate = f"{r['decisions_per_sec']} ({r['decisions_per_sec_min']}-{r['decisions_per_sec_max']})"
        game_ms = f"{r['median_game_ms']} ({r['median_game_cpu_ms']})"
        lines.append(f"{r['game']:<11} {r['players']:>7}  {r['bot']:<7} {rate:<27} {r['cpu_decisions_per_sec']:>15}"
                     f"  {game_ms:>20}  {r['median_decisions_per_game']:>14}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games per repetition")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--no-greedy", action="store_true", help="random bots only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pin", action="store_true", help="pin the process to one CPU (best on an idle machine)")
    parser.add_argument("--profile", type=int, metavar="N", help="print a cProfile top-N of random-bot games")
    args = parser.parse_args(argv)
    cpu = pin_to_one_core() if args.pin else None
    rows = []
    for name in args.game or game_names():
        game = load_game(name)
        players = max(game.min_players, min(4, game.max_players))
        for bot in ["random"] if args.no_greedy else ["random", "greedy"]:
            rows.append(measure(name, players, bot, args.games, args.reps, args.seed))
    if args.json:
        print(json.dumps({"cpu": cpu, "target_decisions_per_sec": TARGET_DECISIONS_PER_SEC, "results": rows}))
    else:
        print(table(rows))
    if args.profile:
        for name in args.game or game_names():
            game = load_game(name)
            players = max(game.min_players, min(4, game.max_players))
            print(f"\ncProfile, {name}, {players} players, random bots:")
            print(profile_top(name, players, args.games, args.profile, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
