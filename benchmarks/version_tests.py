"""Version tests on a real deployment (docs/version-tests.md): games and wall time to a decision, and the share of
the workers' time tests took while a ladder was playing.

A throwaway cluster (benchmarks/cluster.py: its own database and Redis) with one Celery worker process and a real
beat (which advances tests every LUDUS_DISPATCH_SECONDS and tops up ladders every LUDUS_LADDER_SECONDS). For each
seed: (1) greedy against greedy_eps50 in Evolution, 3 players (the field: greedy), H0 lead 0, H1 lead 0.1, alone
on the worker, timed from start to decision; (2) the same test again while a ladder of built-ins plays, and the
tests' share of the match time since it started (tournaments.version_tests.worker_seconds).

    python -m benchmarks.version_tests --seeds 35,36,37 [--share 0.25]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.cluster import Cluster, setup_django, wait_for

DECIDED = ("passed", "failed", "capped")


def run_test(seed: int) -> dict[str, Any]:
    from django.utils import timezone

    from tournaments.builtins import ensure_builtin, system_user
    from tournaments.models import Match, VersionTest
    from tournaments.version_tests import TestRequest, start_test, worker_seconds

    since, started = timezone.now() - timedelta(milliseconds=1), time.monotonic()
    test = start_test(system_user(), TestRequest(
        new=ensure_builtin("greedy").pk, base=ensure_builtin("greedy_eps50").pk, game="evolution", players=3,
        d0=0.0, d1=0.1, batch_deals=4, max_games=600, seed=seed))
    wait_for(lambda: VersionTest.objects.get(pk=test.pk).status in DECIDED, 3600, f"test {test.pk}", poll_s=0.2)
    wall = time.monotonic() - started
    test.refresh_from_db()
    tests_s, all_s = worker_seconds(since)
    ladder_games = Match.objects.filter(ladder__paused=False, finished_at__gte=since,
                                        status=Match.Status.FINISHED).count()
    return {"seed": seed, "status": test.status, "games": test.games_played, "wall_s": round(wall, 1),
            "llr": round(test.llr, 3), "tests_worker_s": round(tests_s, 1), "all_worker_s": round(all_s, 1),
            "tests_share": round(tests_s / all_s, 3) if all_s else None, "ladder_games": ladder_games}


def start_ladder() -> None:
    from tournaments.builtins import ensure_builtin
    from tournaments.ladders import join_ladder
    from tournaments.models import Ladder

    ladder = Ladder.objects.create(name="bench ladder", game="evolution", players_per_match=3, max_queued=2)
    join_ladder(ladder, [ensure_builtin(f"ladder-{name}", name) for name in ("greedy", "greedy_eps30", "random")])


def summary(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    values = [row[key] for row in rows if row[key] is not None]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="35,36,37")
    parser.add_argument("--share", default="0.25", help="LUDUS_TEST_SHARE for the workers and beat")
    parser.add_argument("--out", help="also write the figures to this JSON file")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    with tempfile.TemporaryDirectory() as workdir, Cluster(Path(workdir)) as cluster:
        setup_django(cluster)
        env = {"LUDUS_TEST_SHARE": args.share, "LUDUS_DISPATCH_SECONDS": "5", "LUDUS_LADDER_SECONDS": "10"}
        cluster.start_worker("worker", concurrency=1, **env)
        cluster.spawn("beat", [sys.executable, "-m", "celery", "-A", "workers", "beat", "--loglevel=INFO", "-s",
                               str(Path(workdir) / "beat-schedule")], env=cluster.env(**env))
        alone = [run_test(seed) for seed in seeds]
        start_ladder()
        beside = [run_test(seed) for seed in seeds]
    figures = {"alone": alone, "beside_a_ladder": beside, "share_setting": float(args.share),
               "summary": {"alone_games": summary(alone, "games"), "alone_wall_s": summary(alone, "wall_s"),
                           "beside_wall_s": summary(beside, "wall_s"),
                           "beside_tests_share": summary(beside, "tests_share")}}
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
