"""Load: N matches of sandboxed uploaded bots through real Celery workers, with the API read while they run.

A throwaway deployment (benchmarks/cluster.py: its own database, its own redis-server, W Celery worker processes of
one pool process each, gunicorn on loopback). The example bot examples/bots/evolution_bot.py is stored as 4 uploaded
bots (active at once: the smoke-match validation is skipped), and round-robin tournaments of 2-player Evolution
(`deck: short`) give N matches, all sent to the broker at once. While they run, a client reads match lists and
standings from the API (a bounded number of requests).

Reported: matches per minute; from the runner's logged timings, the share of a match's time outside the game
(claim, load, making the seats, starting and stopping the sandboxes, verifying, writing the result) against the
game itself; the API's latency (p50/p95) idle and under load; and that every match finished exactly once.

    python -m benchmarks.load                    # N=2000, 2 workers
    python -m benchmarks.load -n 200 --json artifacts/load.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.cluster import ROOT, Cluster, setup_django

EXAMPLE_BOT = ROOT / "examples" / "bots" / "evolution_bot.py"
OPTIONS = {"deck": "short"}
OUTSIDE = ("claim", "load", "spawn", "start", "finish", "verify", "store", "record")


def make_versions(count: int) -> list[Any]:
    from django.contrib.auth import get_user_model

    from tournaments.models import Bot, BotVersion

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    source = EXAMPLE_BOT.read_bytes()
    versions = []
    for i in range(count):
        bot, _ = Bot.objects.get_or_create(owner=owner, name=f"evolver-{i}", game="evolution")
        version = bot.versions.first() or BotVersion.objects.create(
            bot=bot, number=1, source=source + f"# copy {i}\n".encode(), filename="evolution_bot.py",
            status=BotVersion.Status.ACTIVE)
        versions.append(version)
    return versions


def make_matches(versions: list[Any], count: int, label: str) -> list[int]:
    """Round-robin 2-player tournaments with enough games per table for count matches (rounded up)."""
    from tournaments.scheduling import create_tournament, start_tournament

    tables = len(versions) * (len(versions) - 1) // 2
    tournament = create_tournament(versions, name=f"load {label}", game="evolution", players_per_table=2,
                                   games_per_set=max(1, math.ceil(count / tables)), options=OPTIONS, seed=17)
    return [m.pk for m in start_tournament(tournament, enqueue=False)]


class ApiReader(threading.Thread):
    """Reads match lists and standings in a loop: at most `limit` requests, one every `interval` seconds."""

    def __init__(self, base: str, tournament_id: int, limit: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.paths = [f"/api/matches/?tournament={tournament_id}", f"/api/tournaments/{tournament_id}/standings/",
                      f"/api/matches/?tournament={tournament_id}&status=finished"]
        self.base, self.limit, self.interval = base, limit, interval
        self.latencies: list[float] = []
        self.by_path: dict[str, list[float]] = {}
        self.errors: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        for i in range(self.limit):
            if self.done.is_set():
                return
            path = self.paths[i % len(self.paths)]
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(self.base + path, timeout=60) as response:
                    response.read()
                self.latencies.append(time.perf_counter() - t0)
                self.by_path.setdefault(path.split("?")[0] + ("?…" if "?" in path else ""), []).append(
                    self.latencies[-1])
            except OSError as exc:
                self.errors.append(f"{path}: {exc}")
            self.done.wait(self.interval)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] if ordered else float("nan")


def latency_summary(values: list[float]) -> dict[str, Any]:
    ms = [v * 1000 for v in values]
    return {"requests": len(ms), "p50_ms": round(percentile(ms, 0.5), 1), "p95_ms": round(percentile(ms, 0.95), 1),
            "max_ms": round(max(ms), 1) if ms else None}


def run_matches(cluster: Cluster, ids: list[int], workers: list[str], deadline_s: float,
                progress: bool = True) -> dict[str, Any]:
    """Send the matches, wait until none is queued or running; return the wall time and the per-phase shares."""
    from tournaments.dispatch import dispatch_match
    from tournaments.models import Match

    pending = Match.objects.filter(pk__in=ids, status__in=["queued", "running"])
    t0 = time.monotonic()
    for match_id in ids:
        dispatch_match(match_id)
    last_note = t0
    while with_db_retry(pending.exists):
        if time.monotonic() - t0 > deadline_s:
            raise TimeoutError(f"{pending.count()} of {len(ids)} matches unfinished after {deadline_s:.0f}s")
        if progress and time.monotonic() - last_note > 15:
            done = len(ids) - with_db_retry(pending.count)
            print(f"  {done}/{len(ids)} finished after {time.monotonic() - t0:.0f}s", flush=True)
            last_note = time.monotonic()
        time.sleep(0.5)  # a poll interval of the benchmark's driver
    wall = time.monotonic() - t0
    return {"matches": len(ids), "workers": len(workers), "wall_s": round(wall, 1),
            "matches_per_min": round(len(ids) / wall * 60, 1), **phase_shares(cluster, ids, workers)}


def with_db_retry(query: Any, patience_s: float = 300) -> Any:
    """The driver's polls outlive a database restart: reconnect until it answers again."""
    from django.db import InterfaceError, OperationalError, connection

    deadline = time.monotonic() + patience_s
    while True:
        try:
            return query()
        except (OperationalError, InterfaceError):
            if time.monotonic() > deadline:
                raise
            connection.close()
            time.sleep(1.0)


def phase_shares(cluster: Cluster, ids: list[int], workers: list[str]) -> dict[str, Any]:
    timings = cluster.timings(*workers)
    rows = [timings[i] for i in ids if i in timings]
    if not rows:
        return {"timed_matches": 0}
    phases = sorted({key for row in rows for key in row})
    mean = {key: round(statistics.fmean(row.get(key, 0.0) for row in rows), 1) for key in phases}
    game = statistics.fmean(row["play"] - row.get("start", 0) - row.get("finish", 0) for row in rows)
    outside = statistics.fmean(sum(row.get(key, 0.0) for key in OUTSIDE) for row in rows)
    return {"timed_matches": len(rows), "mean_phase_ms": mean, "mean_game_ms": round(game, 1),
            "mean_outside_ms": round(outside, 1), "outside_share": round(outside / (outside + game), 3)}


def check_exactly_once(ids: list[int]) -> dict[str, Any]:
    """Every match finished once: one replay, every seat rated, rating games equal to seats played."""
    from django.db.models import Count, Q, Sum

    from replays.models import Replay
    from tournaments.models import Match, Rating, Seat
    from tournaments.ratings import rating_differences

    matches = Match.objects.filter(pk__in=ids)
    tournament_ids = set(matches.values_list("tournament_id", flat=True))
    seats = Seat.objects.filter(match__in=matches)
    ratings = Rating.objects.filter(tournament_id__in=tournament_ids)
    result = {
        "finished": matches.filter(status="finished").count(),
        "replays": Replay.objects.filter(match__in=matches).count(),
        "seats_rated": seats.filter(rating_mu_after__isnull=False).count(),
        "seats": seats.count(),
        "rating_games": ratings.aggregate(n=Sum("games"))["n"] or 0,
        "attempts": dict(matches.values_list("attempts").annotate(n=Count("id")).order_by()),
        "ratings_agree_with_history": all(
            rating_differences(Q(tournament_id=t), Q(tournament_id=t)) == [] for t in tournament_ids),
    }
    result["exactly_once"] = (result["finished"] == result["replays"] == len(ids)
                              and result["seats_rated"] == result["seats"] == result["rating_games"]
                              and result["ratings_agree_with_history"])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--matches", type=int, default=2000)
    parser.add_argument("-w", "--workers", type=int, default=2, help="Celery worker processes (one pool process each)")
    parser.add_argument("--api-requests", type=int, default=600, help="at most this many API reads during the load")
    parser.add_argument("--api-interval", type=float, default=0.25, help="seconds between API reads")
    parser.add_argument("--deadline", type=float, default=4 * 3600)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432/postgres",
                        help="the PostgreSQL server (a database is created on it and dropped)")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ludus-load-") as tmp, Cluster(Path(tmp), server_url=args.server) as c:
        setup_django(c)
        report = run_load(c, args.matches, args.workers, args.api_requests, args.api_interval, args.deadline)
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if report["exactly_once"]["exactly_once"] else 1


def run_load(cluster: Cluster, n: int, workers: int, api_requests: int, api_interval: float,
             deadline_s: float) -> dict[str, Any]:
    from tournaments.models import Match

    versions = make_versions(4)
    ids = make_matches(versions, n, f"{n}x{workers}")
    tournament_id = Match.objects.get(pk=ids[0]).tournament_id
    base = cluster.start_web()
    idle = ApiReader(base, tournament_id, limit=30, interval=0.05)
    idle.run()  # in this thread: the API's latency with no match running
    names = [cluster.start_worker(f"worker-{i}") for i in range(workers)]
    reader = ApiReader(base, tournament_id, limit=api_requests, interval=api_interval)
    reader.start()
    try:
        throughput = run_matches(cluster, ids, names, deadline_s)
    finally:
        reader.done.set()
        reader.join()
    return {"n": len(ids), "workers": workers, "game": "evolution", "players": 2, "options": OPTIONS,
            "bots": "examples/bots/evolution_bot.py as 4 uploaded bots, sandboxed (bwrap)",
            "throughput": throughput, "api_idle": latency_summary(idle.latencies),
            "api_under_load": {**latency_summary(reader.latencies), "errors": reader.errors[:5],
                               "by_path": {path: latency_summary(v) for path, v in reader.by_path.items()}},
            "exactly_once": check_exactly_once(ids)}


if __name__ == "__main__":
    raise SystemExit(main())
