"""View building against engine steps: CPU µs per view and per step, and view ÷ step, per game, paired with a
baseline checkout.

Each repetition plays `--games` random games of each game (fixed seeds; the choices are random from the seed), and
before each step builds the deciding seat's view, as a match does for an uploaded bot. Both are timed with the
process's CPU time, which a busy machine inflates less than the wall clock. Each repetition runs in a fresh child
process; with --baseline, the same repetitions run in that checkout too, alternating with this one, so both see the
same machine. The table gives medians over the repetitions with their min-max spread, and the paired ratio of
this checkout's view µs to the baseline's.

    python -m benchmarks.views                                  # this checkout
    git worktree add /tmp/base-views main
    python -m benchmarks.views --baseline /tmp/base-views --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = (("evolution", 4), ("marine", 4))


def one_rep(game_name: str, players: int, seeds: range) -> dict[str, float]:
    """Play the seeds' random games; the mean CPU µs of a view of the deciding seat and of a step."""
    from engine.registry import load_game  # from the checkout on the child's path

    game = load_game(game_name)
    view_s = step_s = 0.0
    steps = 0
    clock = time.process_time
    for seed in seeds:
        state, rng = game.new_state(players, seed), random.Random(seed)
        decision = state.decision()
        while decision is not None:
            start = clock()
            state.view(decision.seat)
            built = clock()
            state.apply(decision.options[rng.randrange(len(decision.options))])
            view_s, step_s, steps = view_s + built - start, step_s + clock() - built, steps + 1
            decision = state.decision()
    return {"view_us": view_s / steps * 1e6, "step_us": step_s / steps * 1e6, "steps": steps}


def run_child(checkout: Path, game_name: str, players: int, seeds: range) -> dict[str, float]:
    """one_rep in a fresh process that imports `engine` from checkout (-P: not this directory's engine.py)."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-P", __file__, "--child", str(checkout), game_name, str(players), str(seeds.start),
               str(seeds.stop)]
    out = subprocess.run(command, cwd=checkout, env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def child(checkout: str, game_name: str, players: str, start: str, stop: str) -> int:
    import engine

    if not Path(engine.__file__).resolve().is_relative_to(Path(checkout).resolve()):
        raise SystemExit(f"engine came from {engine.__file__}, not from {checkout}")
    print(json.dumps(one_rep(game_name, int(players), range(int(start), int(stop)))))
    return 0


def summary(reps: list[dict[str, float]]) -> dict[str, Any]:
    """Medians and min-max of view µs, step µs and view ÷ step over the repetitions."""
    out: dict[str, Any] = {"steps_per_rep": reps[0]["steps"]}
    for key, values in (("view_us", [r["view_us"] for r in reps]), ("step_us", [r["step_us"] for r in reps]),
                        ("view_over_step", [r["view_us"] / r["step_us"] for r in reps])):
        out[key] = round(statistics.median(values), 2)
        out[f"{key}_range"] = [round(min(values), 2), round(max(values), 2)]
    return out


def measure(game_name: str, players: int, games: int, reps: int, seed: int,
            baseline: Path | None) -> dict[str, Any]:
    mine: list[dict[str, float]] = []
    base: list[dict[str, float]] = []
    for rep in range(reps):
        seeds = range(seed + rep * games, seed + (rep + 1) * games)
        order = [(ROOT, mine)] + ([(baseline, base)] if baseline else [])
        for checkout, into in order if rep % 2 == 0 else order[::-1]:  # alternate who goes first
            into.append(run_child(checkout, game_name, players, seeds))
    row: dict[str, Any] = {"game": game_name, "players": players, "games_per_rep": games, "reps": reps,
                           **summary(mine)}
    if baseline:
        row["baseline"] = summary(base)
        paired = [m["view_us"] / b["view_us"] for m, b in zip(mine, base, strict=True)]
        row["view_us_over_baseline"] = round(statistics.median(paired), 3)
        row["view_us_over_baseline_range"] = [round(min(paired), 3), round(max(paired), 3)]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["game       players  checkout  view µs (min-max)     step µs (min-max)   view ÷ step (min-max)"]
    for r in rows:
        for label, s in [("this", r)] + ([("baseline", r["baseline"])] if "baseline" in r else []):
            lines.append(f"{r['game']:<10} {r['players']:>7}  {label:<8}  "
                         f"{s['view_us']:>7} ({s['view_us_range'][0]}-{s['view_us_range'][1]})".ljust(52)
                         + f"{s['step_us']:>6} ({s['step_us_range'][0]}-{s['step_us_range'][1]})".ljust(20)
                         + f"{s['view_over_step']:>5} ({s['view_over_step_range'][0]}-{s['view_over_step_range'][1]})")
        if "view_us_over_baseline" in r:
            low, high = r["view_us_over_baseline_range"]
            lines.append(f"{'':<19}view µs ÷ baseline, paired: {r['view_us_over_baseline']} ({low}-{high})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.views", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games per repetition")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--game", action="append", choices=[name for name, _ in CASES], help="only this game")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to measure side by side")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.baseline and not (args.baseline / "engine").is_dir():
        parser.error(f"--baseline {args.baseline}: not a checkout (no engine/ in it)")
    rows = [measure(name, players, args.games, args.reps, args.seed, args.baseline)
            for name, players in CASES if not args.game or name in args.game]
    print(json.dumps({"results": rows}) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(child(*sys.argv[2:]) if sys.argv[1:2] == ["--child"] else main())
