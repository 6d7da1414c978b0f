"""REST API latency and queries per request, against a real gunicorn on loopback and a filled PostgreSQL database.

The script creates (or re-creates) the database `ludus_bench_api` on the PostgreSQL server of DATABASE_URL (default
postgres://postgres@127.0.0.1:5432/ludus), migrates it and fills it with bulk inserts: 1,000 bots with a version
each, a ladder with their 1,000 ratings and 100,000 finished two-seat matches (200,000 seats), 1,000 replays, and a
16-entry round-robin tournament. It then starts gunicorn on a free loopback port (2 sync workers, persistent
database connections, DEBUG off) and times sequential keep-alive requests per endpoint: p50 and p95 in ms. Queries
per request are counted in process (CaptureQueriesContext) for page sizes 10 and 100: they must be equal.

    python -m benchmarks.api                       # fill (if needed), serve, measure: a table
    python -m benchmarks.api --requests 300 --json
    python -m benchmarks.api --refill              # drop and fill the database again
    python -m benchmarks.api --baseline /tmp/old   # and a checkout of another commit, side by side
    python -m benchmarks.api --concurrent 8,32 --baseline /tmp/old   # N clients at once on the ASGI server
    python -m benchmarks.api --matches 1000,100000  # every page and endpoint at two sizes (benchmarks/api_scaling.py)

With --baseline, a second gunicorn runs that checkout's code on the same database, and the requests alternate
between the two servers, so both see the same machine at the same moments: the ratio of their p95s is the honest
comparison on a noisy machine. (Its schema must be compatible: an older commit ignores columns added since.)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
BENCH_DB = "ludus_bench_api"
BOTS, MATCHES, REPLAYS, ENTRANTS = 1_000, 100_000, 1_000, 16
TARGET_P95_MS = 50.0


def bench_url(base: str) -> str:
    parts = urlsplit(base)
    return parts._replace(path=f"/{BENCH_DB}").geturl()


def recreate_database(base: str, refill: bool) -> bool:
    """Create the benchmark database; True when it must be filled (new, or --refill)."""
    import psycopg

    parts = urlsplit(base)
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (BENCH_DB,)).fetchone()
        if exists and not refill:
            return False
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    return True


def setup_django(url: str) -> None:
    os.environ.update(DATABASE_URL=url, DEBUG="1", DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()


def fill() -> None:
    """Bulk-insert the data set; about a minute on a busy two-core machine."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone

    from engine import load_game
    from replays.models import Replay
    from tournaments.models import Bot, BotVersion, Entry, Ladder, Match, Rating, Seat, Tournament

    call_command("migrate", verbosity=0)
    started = time.monotonic()
    rng = random.Random(1)
    User = get_user_model()
    owners = User.objects.bulk_create([User(username=f"author{i}") for i in range(100)])
    bots = Bot.objects.bulk_create([Bot(owner=owners[i % 100], name=f"bot{i}", game="evolution")
                                    for i in range(BOTS)])
    source = b"from engine.sdk import run\nrun(lambda view, decision: 0)\n"
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=bot, number=1, source=source, sha256="0" * 64, size=len(source), status="active")
        for bot in bots])
    options = load_game("evolution").validate_options({"deck": "short"})
    ladder = Ladder.objects.create(name="bench", game="evolution", options=options, players_per_match=2)
    Rating.objects.bulk_create([Rating(ladder=ladder, bot_version=v, mu=rng.gauss(25, 3), sigma=rng.uniform(1, 8),
                                       games=100, wins=50, seat_record=[[50, 30], [50, 20]])
                                for v in versions])
    now = timezone.now()
    for start in range(0, MATCHES, 10_000):
        batch = Match.objects.bulk_create([
            Match(ladder=ladder, game="evolution", num_players=2, seed=i, options=options, status="finished",
                  attempts=1, created_at=now, finished_at=now, started_at=now)
            for i in range(start, start + 10_000)], batch_size=2_000)
        Seat.objects.bulk_create([
            Seat(match=m, number=n, bot_version=v, score=10 - n, rank=n + 1, rating_mu_before=25,
                 rating_mu_after=25 + (1 - 2 * n))
            for m in batch for n, v in enumerate(rng.sample(versions, 2))], batch_size=5_000)
    document = played_document(options)
    from replays import format as replay_format

    actions = replay_format.encode_actions(document["actions"])
    Replay.objects.bulk_create([Replay(match_id=pk, header=document["header"], actions=actions,
                                       footer=document["footer"], size=len(actions))
                                for pk in Match.objects.order_by("-pk").values_list("pk", flat=True)[:REPLAYS]])
    tournament = Tournament.objects.create(name="bench cup", game="evolution", options=options,
                                           players_per_table=2, state="finished")
    entrants = versions[:ENTRANTS]
    Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in entrants])
    pairs = [(a, b) for i, a in enumerate(entrants) for b in entrants[i + 1:]]
    matches = Match.objects.bulk_create([
        Match(tournament=tournament, round=1, game="evolution", num_players=2, seed=i, options=options,
              status="finished", finished_at=now) for i in range(len(pairs))])
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=v, score=5, rank=rng.choice([1, 2]))
                              for m, pair in zip(matches, pairs, strict=True) for n, v in enumerate(pair)])
    Rating.objects.bulk_create([Rating(tournament=tournament, bot_version=v, mu=25, sigma=5) for v in entrants])
    # The results were inserted, not recorded: their standings rows as record_result would have kept them
    # (docs/architecture.md#standings-rows).
    from tournaments.standings import rebuild_standings

    rebuild_standings(tournament)
    rebuild_standings(ladder)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # fresh planner statistics, as autovacuum would give a live database
    print(f"filled in {time.monotonic() - started:.0f} s", file=sys.stderr)


def played_document(options: dict[str, Any]) -> dict[str, Any]:
    from engine import load_game
    from replays import format as replay_format

    game = load_game("evolution")
    state = game.new_state(2, 42, options)
    actions = []
    while (decision := state.decision()) is not None:
        actions.append({"seat": decision.seat, "choice": len(actions) % len(decision.options), "ms": 5})
        state.choose(actions[-1]["choice"])
    outcome = state.outcome()
    assert outcome is not None
    header = replay_format.make_header("evolution", game.rules_version, options, 42, {}, [{}, {}])
    return {"header": header, "actions": actions, "footer": replay_format.make_footer(outcome.to_dict(), [0, 0],
                                                                                       [False, False])}


def endpoints() -> dict[str, str]:
    from tournaments.models import Bot, Ladder, Match, Tournament

    ladder = Ladder.objects.get(name="bench")
    tournament = Tournament.objects.get(name="bench cup")
    bot = Bot.objects.order_by("pk")[500]
    replayed = Match.objects.filter(replay__isnull=False).order_by("pk").first()
    assert replayed is not None
    return {
        "ladder standings": f"/api/ladders/{ladder.pk}/standings/",
        "ladder standings, 100": f"/api/ladders/{ladder.pk}/standings/?page_size=100",
        "tournament standings": f"/api/tournaments/{tournament.pk}/standings/",
        "match list": "/api/matches/",
        "match list, 100": "/api/matches/?page_size=100",
        "match list, filtered": f"/api/matches/?ladder={ladder.pk}&status=finished",
        "match list, 50 pages in": deep_page(f"/api/matches/?ladder={ladder.pk}&status=finished", 50),
        "match list by bot": f"/api/matches/?bot={bot.pk}",
        "replay header": f"/api/matches/{replayed.pk}/replay/",
        "replay frames (20)": f"/api/matches/{replayed.pk}/frames/?start=0&stop=20",
        "replay seat frames (20)": f"/api/matches/{replayed.pk}/frames/?start=20&stop=40&seat=1",
    }


def deep_page(url: str, pages: int) -> str:
    """The URL of the page `pages` pages in, by following the cursor links (as a client would)."""
    from django.test import Client

    client = Client()
    for _ in range(pages):
        url = client.get(url, HTTP_HOST="127.0.0.1").json()["next"]
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


LISTS = ("standings", "match list")


def count_queries(urls: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Queries per request for page sizes 10 and 100 (lists), in process."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    counts = {}
    for name, url in urls.items():
        if "page_size" in url or not any(word in name for word in LISTS):
            continue
        joiner = "&" if "?" in url else "?"
        per_size = []
        for size in (10, 100):
            with CaptureQueriesContext(connection) as queries:
                response = client.get(f"{url}{joiner}page_size={size}", HTTP_HOST="127.0.0.1")
            assert response.status_code == 200, (url, response.status_code)
            per_size.append(len(queries))
        counts[name] = (per_size[0], per_size[1])
    return counts


def cpu_ms(urls: dict[str, str], repeats: int = 10) -> dict[str, float]:
    """In-process CPU milliseconds per request (median): what a request costs apart from a busy machine's queueing."""
    from django.test import Client

    client = Client()
    costs = {}
    for name, url in urls.items():
        client.get(url, HTTP_HOST="127.0.0.1")
        samples = []
        for _ in range(repeats):
            started = time.process_time()
            client.get(url, HTTP_HOST="127.0.0.1")
            samples.append((time.process_time() - started) * 1000)
        costs[name] = round(statistics.median(samples), 2)
    return costs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


WSGI = ["config.wsgi"]
# The README's server: ASGI, each request in a thread. Connections per request (DATABASE_CONN_MAX_AGE=0): the one
# setting that was safe before the pool, which a checkout with gunicorn.conf.py replaces by its pool.
ASGI = ["config.asgi:application", "--worker-class", "uvicorn_worker.UvicornWorker"]


def start_gunicorn(url: str, port: int, code: Path = ROOT, app: list[str] = WSGI,
                   conn_max_age: str = "60") -> subprocess.Popen[bytes]:
    env = dict(os.environ, DATABASE_URL=url, DEBUG="0", SECRET_KEY=secrets.token_urlsafe(40),
               ALLOWED_HOSTS="127.0.0.1", DATABASE_CONN_MAX_AGE=conn_max_age, LOG_LEVEL="ERROR",
               PYTHONPATH=str(code), LUDUS_SSL_REDIRECT="0")
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", *app, "-w", "2", "-b",
                               f"127.0.0.1:{port}", "--chdir", str(code), "--log-level", "warning"], cwd=code, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"gunicorn exited with {server.returncode}") from None
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("gunicorn did not start listening within 60 s")


def measure(ports: list[int], urls: dict[str, str], requests: int) -> list[dict[str, dict[str, float]]]:
    """p50 and p95 per endpoint for each server; with two, requests alternate between them (the first of each
    pair alternates too)."""
    results: list[dict[str, dict[str, float]]] = [{} for _ in ports]
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=30) for port in ports]
    for name, url in urls.items():
        for conn in conns:
            for _ in range(10):  # warm-up: connections, caches, the first import of each view
                get(conn, url)
        times: list[list[float]] = [[] for _ in ports]
        for i in range(requests):
            order = range(len(conns)) if i % 2 == 0 else reversed(range(len(conns)))
            for which in order:
                started = time.perf_counter()
                get(conns[which], url)
                times[which].append((time.perf_counter() - started) * 1000)
        for which, samples in enumerate(times):
            samples.sort()
            results[which][name] = {"p50_ms": round(statistics.median(samples), 2),
                                    "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 2)}
    for conn in conns:
        conn.close()
    return results


def concurrent_endpoints(urls: dict[str, str]) -> dict[str, str]:
    return {"schema": "/api/schema/", "match list": urls["match list"], "ladder standings": urls["ladder standings"]}


def measure_concurrent(ports: list[int], urls: dict[str, str], clients: int, rounds: int,
                       ) -> list[dict[str, dict[str, float]]]:
    """p50, p95 and errors per endpoint for each server, with `clients` requests at once on new connections, for
    `rounds` rounds after a warm-up round; each round goes to every server in turn (the first alternates), so both
    share the machine's moments. Errors (any answer but 200) count the warm-up round too."""
    results: list[dict[str, dict[str, float]]] = [{} for _ in ports]
    with ThreadPoolExecutor(clients) as pool:
        for name, url in urls.items():
            times: list[list[float]] = [[] for _ in ports]
            errors = [0 for _ in ports]
            for which, port in enumerate(ports):  # warm-up (the first schema, the first import of each view):
                for ok, _ in pool.map(timed_get, [port] * clients, [url] * clients):  # untimed, its errors counted
                    errors[which] += not ok
            for i in range(rounds):
                for which in (range(len(ports)) if i % 2 == 0 else reversed(range(len(ports)))):
                    for ok, ms in pool.map(timed_get, [ports[which]] * clients, [url] * clients):
                        times[which].append(ms)
                        errors[which] += not ok
            for which, samples in enumerate(times):
                samples.sort()
                results[which][name] = {"p50_ms": round(statistics.median(samples), 1),
                                        "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 1),
                                        "errors": errors[which], "requests": len(samples) + clients}
    return results


def timed_get(port: int, url: str) -> tuple[bool, float]:
    """One request on a connection of its own: whether it answered 200, and its milliseconds."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", url, headers={"Host": "127.0.0.1", "Accept": "application/json"})
        response = conn.getresponse()
        response.read()
        ok = response.status == 200
    except (OSError, http.client.HTTPException):
        ok = False
    finally:
        conn.close()
    return ok, (time.perf_counter() - started) * 1000


def run_concurrent(url: str, urls: dict[str, str], codes: list[Path], clients: list[int], rounds: int) -> None:
    ports = [free_port() for _ in codes]
    servers = [start_gunicorn(url, port, code, ASGI, "0") for port, code in zip(ports, codes, strict=True)]
    try:
        table = {n: measure_concurrent(ports, concurrent_endpoints(urls), n, rounds) for n in clients}
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; gunicorn + uvicorn workers (2 each), "
          f"DEBUG=0; {rounds} rounds of N requests at once, alternating between {len(codes)} server(s)")
    print(f"{'endpoint':<18} {'N':>3} " + " ".join(f"{'p50 ms':>8} {'p95 ms':>8} {'errors':>9}" for _ in codes)
          + ("   (this checkout, then the baseline)" if len(codes) > 1 else ""))
    for n, results in table.items():
        for name in results[0]:
            cells = " ".join(f"{r[name]['p50_ms']:>8.1f} {r[name]['p95_ms']:>8.1f} "
                             f"{int(r[name]['errors']):>4}/{int(r[name]['requests']):<4}" for r in results)
            print(f"{name:<18} {n:>3} {cells}")


def get(conn: http.client.HTTPConnection, url: str) -> None:
    conn.request("GET", url, headers={"Host": "127.0.0.1", "Accept": "application/json"})
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"GET {url}: {response.status} {body[:200]!r}")


def main() -> None:
    from benchmarks import api_scaling

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="timed requests per endpoint")
    parser.add_argument("--refill", action="store_true", help="drop and fill the benchmark database again")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to measure side by side")
    parser.add_argument("--concurrent", help="client counts, such as 8,32: the schema, the match list and the "
                                             "ladder standings under the ASGI server, N requests at once")
    parser.add_argument("--rounds", type=int, default=16, help="with --concurrent: rounds of N requests per server")
    api_scaling.add_arguments(parser)
    args = parser.parse_args()
    if args.matches:
        api_scaling.run(args)
        return
    url = bench_url(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ludus"))
    must_fill = recreate_database(url, args.refill)
    setup_django(url)
    if must_fill:
        fill()
    urls = endpoints()
    if args.concurrent:
        codes = [ROOT] + ([args.baseline.resolve()] if args.baseline else [])
        run_concurrent(url, urls, codes, [int(n) for n in args.concurrent.split(",")], args.rounds)
        return
    queries = count_queries(urls)
    cpu = cpu_ms(urls)
    codes = [ROOT] + ([args.baseline.resolve()] if args.baseline else [])
    ports = [free_port() for _ in codes]
    servers = [start_gunicorn(url, port, code) for port, code in zip(ports, codes, strict=True)]
    try:
        latency = measure(ports, urls, args.requests)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
    report(urls, latency[0], queries, cpu, args.json, latency[1] if args.baseline else None)


def report(urls: dict[str, str], latency: dict[str, dict[str, float]], queries: dict[str, tuple[int, int]],
           cpu: dict[str, float], as_json: bool, baseline: dict[str, dict[str, float]] | None = None) -> None:
    if as_json:
        print(json.dumps({"latency": latency, "queries": queries, "cpu_ms": cpu, "baseline_latency": baseline},
                         indent=2))
        return
    if baseline is not None:
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; requests alternated between "
              "this checkout and the baseline")
        print(f"{'endpoint':<26} {'p50 ms':>8} {'p95 ms':>8} {'base p50':>9} {'base p95':>9} {'p95 ratio':>10}")
        for name in urls:
            new, old = latency[name], baseline[name]
            print(f"{name:<26} {new['p50_ms']:>8.2f} {new['p95_ms']:>8.2f} {old['p50_ms']:>9.2f} "
                  f"{old['p95_ms']:>9.2f} {new['p95_ms'] / old['p95_ms']:>10.2f}")
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'endpoint':<26} {'p50 ms':>8} {'p95 ms':>8} {'cpu ms':>7}  {'queries (10 / 100 rows)':>24}")
    for name in urls:
        q = queries.get(name)
        shown = f"{q[0]} / {q[1]}" if q else "-"
        flag = "" if latency[name]["p95_ms"] < TARGET_P95_MS else "  (over the 50 ms target)"
        print(f"{name:<26} {latency[name]['p50_ms']:>8.2f} {latency[name]['p95_ms']:>8.2f} {cpu[name]:>7.2f}  "
              f"{shown:>24}{flag}")


if __name__ == "__main__":
    main()
