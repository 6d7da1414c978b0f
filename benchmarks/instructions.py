"""Engine work in CPU instructions (valgrind's callgrind), paired with a baseline checkout: instructions do not
depend on how busy the machine is, so small changes show where timings drown in noise.

Per game (4 players), `--games` random games from fixed seeds (the choices are random from the seed, so every
checkout plays the same games while the rules do not change): instructions per decision for the engine alone
(steps), and for a view of the deciding seat before each step (the difference of a run that builds them). Each
figure is a run minus a run of 0 games, so start-up and imports cancel out; bytecode is never cached, so both
runs compile the same modules.

    git worktree add /tmp/base main
    python -m benchmarks.instructions --baseline /tmp/base          # about 5 minutes on an idle core
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = (("evolution", 4), ("marine", 4))


def play(game_name: str, players: int, games: int, views: bool) -> int:
    """Play the random games, building the deciding seat's view before each step when asked; the decisions."""
    from engine.registry import load_game  # from the checkout on the child's path

    game, decisions = load_game(game_name), 0
    for seed in range(games):
        state, rng = game.new_state(players, seed), random.Random(seed)
        decision = state.decision()
        while decision is not None:
            if views:
                state.view(decision.seat)
            state.apply(decision.options[rng.randrange(len(decision.options))])
            decisions += 1
            decision = state.decision()
    return decisions


def count(checkout: Path, game_name: str, players: int, games: int, views: bool) -> tuple[int, int]:
    """(instructions, decisions) of one child run under callgrind, engine imported from checkout."""
    with tempfile.TemporaryDirectory() as pycache:
        env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPYCACHEPREFIX": pycache}
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-P", __file__,
                   "--child", game_name, str(players), str(games), "views" if views else "steps"]
        done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind in {checkout} failed: {done.stderr[-2000:]}")
    return int(found.group(1)), int(done.stdout)


def measure(checkout: Path, game_name: str, players: int, games: int) -> dict[str, Any]:
    base, _ = count(checkout, game_name, players, 0, False)
    steps, decisions = count(checkout, game_name, players, games, False)
    with_views, _ = count(checkout, game_name, players, games, True)
    step, view = (steps - base) / decisions, (with_views - steps) / decisions
    return {"decisions": decisions, "step_instructions": round(step), "view_instructions": round(view),
            "view_over_step": round(view / step, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="random games per game and checkout")
    parser.add_argument("--game", action="append", choices=[name for name, _ in CASES], help="only this game")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to measure side by side")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.baseline and not (args.baseline / "engine").is_dir():
        parser.error(f"--baseline {args.baseline}: not a checkout (no engine/ in it)")
    rows = []
    for name, players in CASES:
        if args.game and name not in args.game:
            continue
        row = {"game": name, "players": players, "games": args.games,
               **measure(ROOT, name, players, args.games)}
        if args.baseline:
            old = row["baseline"] = measure(args.baseline.resolve(), name, players, args.games)
            row["steps_over_baseline"] = round(row["step_instructions"] / old["step_instructions"], 3)
            row["views_over_baseline"] = round(row["view_instructions"] / old["view_instructions"], 3)
        rows.append(row)
    if args.json:
        print(json.dumps({"results": rows}))
        return 0
    print("game       players  checkout  instructions per step  per view  view ÷ step")
    for r in rows:
        for label, s in [("this", r)] + ([("baseline", r["baseline"])] if "baseline" in r else []):
            print(f"{r['game']:<10} {r['players']:>7}  {label:<8}  {s['step_instructions']:>21,}  "
                  f"{s['view_instructions']:>8,}  {s['view_over_step']:>10}")
        if "baseline" in r:
            print(f"{'':<19}over the baseline: steps {r['steps_over_baseline']}, views {r['views_over_baseline']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        name, seats, games, what = sys.argv[2:]
        print(play(name, int(seats), int(games), what == "views"))
    else:
        raise SystemExit(main())
