"""How many games a ladder needs to rank bots of known strength in their true order.

Eight built-in bots of decreasing strength: `greedy`, greedy with 15 %, 30 %, 45 %, 60 %, 75 % and 90 % random
moves (`greedy_epsNN`, engine/bots/epsilon.py), and `random`. A ladder plays them through the real code path:
tournaments.ladders.schedule_ladder picks tables by rating, workers.runner.run_match plays, verifies and records
each match in this process (rated in one serial order). After every batch the ladder's order by conservative rating
(mu - 3 sigma) is compared with the true order. The figure is the number of games after which the order was
right and stayed right to the end.

    DATABASE_URL=sqlite:///var/bench.sqlite3 python -m benchmarks.ladder_convergence --game marine --games 600

(needs a migrated database: `manage.py migrate`; it creates a ladder named "convergence <seed>" each run).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

TRUE_ORDER = ["greedy", "greedy_eps15", "greedy_eps30", "greedy_eps45", "greedy_eps60", "greedy_eps75",
              "greedy_eps90", "random"]


@dataclass
class Convergence:
    games: int = 0
    settled_at: int | None = None  # games after which the order was right and stayed right
    order: list[str] = field(default_factory=list)
    history: list[tuple[int, bool]] = field(default_factory=list)

    @property
    def is_true_order(self) -> bool:
        return self.order == TRUE_ORDER


def ladder_order(ladder: Any) -> list[str]:
    from tournaments.standings import ladder_standings

    return [s.name.rsplit("@", 1)[0].removeprefix("ladder-") for s in ladder_standings(ladder)]


def run_convergence(game: str = "marine", players: int = 2, max_games: int = 600, seed: int = 1,
                    batch: int = 8, options: dict[str, Any] | None = None,
                    stable_games: int | None = None) -> Convergence:
    """Play a fresh ladder of the eight bots for max_games games; record when the true order settled.

    With stable_games, stop early once the true order has held for that many games.
    """
    from tournaments.builtins import ensure_builtin
    from tournaments.ladders import join_ladder, schedule_ladder
    from tournaments.models import Ladder
    from workers.runner import run_match

    ladder = Ladder.objects.create(name=f"convergence {game} {players}p {seed} {time.time_ns()}", game=game,
                                   players_per_match=players, options=options or {}, max_queued=batch,
                                   matchmaking={"explore": 0.2, "new_games": 3, "window": 2})
    join_ladder(ladder, [ensure_builtin(f"ladder-{name}", name) for name in TRUE_ORDER])
    result = Convergence()
    while result.games < max_games:
        for match in schedule_ladder(ladder.pk, enqueue=False):
            outcome = run_match(match.pk)
            if outcome != "finished":
                raise RuntimeError(f"match {match.pk}: {outcome}")
            result.games += 1
        result.order = ladder_order(ladder)
        result.history.append((result.games, result.is_true_order))
        if not result.is_true_order:
            result.settled_at = None
        elif result.settled_at is None:
            result.settled_at = result.games
        if stable_games and result.settled_at is not None and result.games - result.settled_at >= stable_games:
            break
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="marine")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stable", type=int, default=0, help="stop once the true order held this many games")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    started = time.monotonic()
    result = run_convergence(args.game, args.players, args.games, args.seed, stable_games=args.stable or None)
    report = {"game": args.game, "players": args.players, "games": result.games, "settled_at": result.settled_at,
              "final_order": result.order, "true_order": TRUE_ORDER, "seconds": round(time.monotonic() - started)}
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>12}: {value}")


if __name__ == "__main__":
    main()
