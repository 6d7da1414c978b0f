"""Version tests on a real deployment (docs/version-tests.md): games and wall time to a decision, and what a test
takes from a ladder playing beside it.

A throwaway cluster (benchmarks/cluster.py: its own database and Redis) with one Celery worker process and a real
beat (tests are advanced by the runner when a batch's last game ends, and by beat every LUDUS_DISPATCH_SECONDS;
ladders are topped up every LUDUS_LADDER_SECONDS = 2). The test: greedy against greedy_eps50 in Evolution, 3
players (the field: greedy), H0 lead 0, H1 lead 0.1, 4 deals a batch.

1. alone: the test on an idle worker, per seed: games and wall time to a decision;
2. a light ladder (three built-ins, one match queued at a time, so the worker idles between top-ups), for a fixed
   time without a test, then beside the test per seed: the tests' share of the match time, and the ladder's games
   per minute and median queue wait (queued to started) without and with the test;
3. a saturating ladder (eight matches queued at a time): the same, one seed, the test given at most --busy-seconds.

    python -m benchmarks.version_tests --seeds 35,36,37 [--share 0.25] [--out figures.json]
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

from benchmarks.cluster import Cluster, setup_django

DECIDED = ("passed", "failed", "capped")


def now() -> Any:
    from django.utils import timezone

    return timezone.now()


def ladder_figures(since: Any, until: Any) -> dict[str, Any]:
    """The ladders' matches that started in [since, until): games per minute and median queue wait."""
    from tournaments.models import Match

    rows = list(Match.objects.filter(ladder__paused=False, started_at__gte=since, started_at__lt=until)
                .values_list("queued_at", "started_at"))
    waits = [(started - queued).total_seconds() for queued, started in rows]
    minutes = (until - since).total_seconds() / 60
    return {"ladder_games_per_min": round(len(rows) / minutes, 1),
            "ladder_median_wait_s": round(statistics.median(waits), 2) if waits else None}


def run_test(seed: int, limit_s: float) -> dict[str, Any]:
    from tournaments.builtins import ensure_builtin, system_user
    from tournaments.models import VersionTest
    from tournaments.version_tests import TestRequest, cancel_test, start_test, worker_seconds

    since, started = now() - timedelta(milliseconds=1), time.monotonic()
    test = start_test(system_user(), TestRequest(
        new=ensure_builtin("greedy").pk, base=ensure_builtin("greedy_eps50").pk, game="evolution", players=3,
        d0=0.0, d1=0.1, batch_deals=4, max_games=600, seed=seed))
    while VersionTest.objects.get(pk=test.pk).status not in DECIDED and time.monotonic() - started < limit_s:
        time.sleep(0.2)  # a poll interval: the limit decides
    wall = time.monotonic() - started
    test.refresh_from_db()
    if test.is_running():
        cancel_test(test)
    tests_s, all_s = worker_seconds(since)
    return {"seed": seed, "status": test.status, "games": test.games_played, "wall_s": round(wall, 1),
            "tests_share": round(tests_s / all_s, 3) if all_s else None, **ladder_figures(since, now())}


def ladder_alone(seconds: float) -> dict[str, Any]:
    since = now()
    time.sleep(seconds)  # the ladder plays for a fixed time: that is what is measured
    return ladder_figures(since, now())


def set_ladder(max_queued: int) -> None:
    from tournaments.builtins import ensure_builtin
    from tournaments.ladders import join_ladder
    from tournaments.models import Ladder

    ladder, created = Ladder.objects.get_or_create(name="bench ladder", defaults={
        "game": "evolution", "players_per_match": 3, "max_queued": max_queued})
    if created:
        join_ladder(ladder, [ensure_builtin(f"ladder-{n}", n) for n in ("greedy", "greedy_eps30", "random")])
    Ladder.objects.filter(pk=ladder.pk).update(max_queued=max_queued)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", default="35,36,37")
    parser.add_argument("--share", default="0.25", help="LUDUS_TEST_SHARE for the workers and beat")
    parser.add_argument("--ladder-seconds", type=float, default=60, help="how long a ladder plays alone")
    parser.add_argument("--busy-seconds", type=float, default=180, help="the test's limit beside a busy ladder")
    parser.add_argument("--out", help="also write the figures to this JSON file")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    figures: dict[str, Any] = {"share_setting": float(args.share)}
    with tempfile.TemporaryDirectory() as workdir, Cluster(Path(workdir)) as cluster:
        setup_django(cluster)
        env = {"LUDUS_TEST_SHARE": args.share, "LUDUS_DISPATCH_SECONDS": "5", "LUDUS_LADDER_SECONDS": "2"}
        cluster.start_worker("worker", concurrency=1, **env)
        cluster.spawn("beat", [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO", "-s",
                               str(Path(workdir) / "beat-schedule")], env=cluster.env(**env))
        figures["alone"] = [run_test(seed, 1800) for seed in seeds]
        set_ladder(1)
        figures["light_ladder_alone"] = ladder_alone(args.ladder_seconds)
        figures["light_ladder_with_test"] = [run_test(seed, 1800) for seed in seeds]
        set_ladder(8)
        figures["busy_ladder_alone"] = ladder_alone(args.ladder_seconds)
        figures["busy_ladder_with_test"] = [run_test(seeds[0], args.busy_seconds)]
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
