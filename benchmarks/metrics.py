"""What the metrics cost: a worker's matches per minute with its metrics on, against a baseline checkout without
them, side by side; and the web's /metrics scrape time as the match table grows.

    python -m benchmarks.metrics --baseline /tmp/base            # 5 rounds of 20 matches per side, then the scrape
    python -m benchmarks.metrics --baseline /tmp/base --json
    python -m benchmarks.metrics --only scrape                   # the scrape alone, no baseline needed

Both workers run on one throwaway database and one private redis-server (benchmarks/cluster.py), one pool process
each, each on a queue of its own. The rounds alternate which side goes first, and only one side plays at a time, so
both see the same machine: the ratio of the medians is the comparison. The matches are 2-player Evolution (short
deck) between uploaded bots in the bwrap sandbox, the load test's matches. The metrics side serves its counts in
multiprocess mode (PROMETHEUS_MULTIPROC_DIR), as the compose file's workers do.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.cluster import Cluster, free_port, setup_django
from benchmarks.load import make_matches, make_versions, with_db_retry

SIDES = ("metrics", "baseline")
TABLE_SIZES = (10_000, 100_000)


def play_round(ids: list[int], queue: str, deadline_s: float = 900) -> float:
    """Send the matches to one worker's queue; matches per minute until none is left unfinished."""
    from config.celery import app
    from tournaments.models import Match

    pending = Match.objects.filter(pk__in=ids, status__in=["queued", "running"])
    t0 = time.monotonic()
    for match_id in ids:
        app.send_task("workers.run_match", args=[match_id], queue=queue)
    while with_db_retry(pending.exists):
        if time.monotonic() - t0 > deadline_s:
            raise TimeoutError(f"{pending.count()} of {len(ids)} matches unfinished on {queue}")
        time.sleep(0.2)  # the driver's poll interval
    return len(ids) / (time.monotonic() - t0) * 60


def throughput(cluster: Cluster, baseline: Path, rounds: int, matches: int) -> dict[str, Any]:
    metrics_port = free_port()
    cluster.start_worker("metrics", LUDUS_QUEUE="bench-metrics", LUDUS_METRICS_PORT=str(metrics_port),
                         PROMETHEUS_MULTIPROC_DIR=str(cluster.workdir / "prometheus"))
    cluster.start_worker("baseline", code=baseline, LUDUS_QUEUE="bench-baseline")
    versions = make_versions(4)
    rates: dict[str, list[float]] = {side: [] for side in SIDES}
    for r in range(rounds):
        for side in SIDES if r % 2 == 0 else SIDES[::-1]:
            ids = make_matches(versions, matches, f"{side} {r}")[:matches]
            rates[side].append(round(play_round(ids, f"bench-{side}"), 1))
    medians = {side: statistics.median(values) for side, values in rates.items()}
    scraped = _scrape(metrics_port)
    return {"rounds": rates, "median_matches_per_min": medians,
            "spread": {side: [min(v), max(v)] for side, v in rates.items()},
            "ratio_metrics_over_baseline": round(medians["metrics"] / medians["baseline"], 3),
            "worker_counted_runs": scraped}


def _scrape(port: int) -> float:
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name == "ludus_worker_runs_total")


def scrape_times(sizes: tuple[int, ...], repeats: int = 15) -> dict[str, Any]:
    """The web's /metrics, in process, over a match table filled to each size: median and range in ms."""
    from django.test import Client

    from tournaments.models import Match, Tournament

    if not Tournament.objects.exists():  # --only scrape: the matches need a competition to belong to
        make_matches(make_versions(2), 1, "scrape")
    tournament = Tournament.objects.order_by("pk").first()
    client, found = Client(), {}
    for size in sizes:
        missing = size - Match.objects.count()
        Match.objects.bulk_create([Match(tournament=tournament, round=1, game="evolution", num_players=2, seed=i,
                                         status=("finished", "failed")[i % 50 == 0]) for i in range(missing)],
                                  batch_size=5000)
        client.get("/metrics", HTTP_HOST="localhost")  # warm
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            assert client.get("/metrics", HTTP_HOST="localhost").status_code == 200
            times.append((time.perf_counter() - t0) * 1000)
        found[str(size)] = {"median_ms": round(statistics.median(times), 1),
                            "range_ms": [round(min(times), 1), round(max(times), 1)]}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="a checkout without the metrics (e.g. main); needed for the "
                        "throughput part")
    parser.add_argument("--only", choices=("throughput", "scrape"), help="one part alone")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=20, help="matches per round and side")
    parser.add_argument("--database", help="the throwaway database's name (created, then dropped; default: unique)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    named = {"name": args.database} if args.database else {}
    with tempfile.TemporaryDirectory(prefix="ludus-bench-metrics-") as tmp, Cluster(Path(tmp), **named) as cluster:
        setup_django(cluster)
        result: dict[str, Any] = {}
        if args.only != "scrape":
            if args.baseline is None:
                parser.error("--baseline is needed for the throughput part (or --only scrape)")
            result["throughput"] = throughput(cluster, args.baseline.resolve(), args.rounds, args.matches)
            print(json.dumps(result), file=sys.stderr, flush=True)  # kept even if the scrape part fails
        if args.only != "throughput":
            result["scrape"] = scrape_times(TABLE_SIZES)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
