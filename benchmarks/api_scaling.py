"""Every page and API endpoint at a few sizes of history: `python -m benchmarks.api --matches 1000,100000`.

For each size the script creates a throwaway PostgreSQL database of its own (`<prefix>_<size>_<run token>`, on the
server of DATABASE_URL), migrates it and bulk-inserts that many matches: a ladder of 200 bots with their rated
two-seat games (seats with their rating changes) and the latest 100 replays, five running matches, and a 16-entrant
round robin whose sets grow with the size (about 2 % of the matches: 120 games at 1,000, 2,040 at 100,000). What
stays fixed is what a page may grow with: the bots, the entrants, the page sizes; and every list shows a full page at
the smallest size too (a deep page is 20 pages in; the bot of the filtered lists plays one game in 20 besides its
share), so that the sizes differ in history only. It then serves the database with
the README's server (gunicorn with 2 uvicorn workers, reading gunicorn.conf.py, DEBUG off), one server a size, all at
once, the requests alternating between them so that every size sees the same moments of a busy machine; for each URL:

- CPU per request: the server's worker processes' CPU time (user + system) over the idle requests, per request
  (200 by default: the kernel counts that time in 10 ms ticks, and over 60 requests of a 5 ms page a tick more or
  less at either end moved the cheapest pages' ratios by up to 0.2; the per-thread nanosecond counters do not help,
  since Django's ASGI handler runs each request's code in a thread of its own that ends with it);
- queries per request, counted in process (CaptureQueriesContext);
- idle p95: sequential requests on one keep-alive connection;
- p95 under load: 32 clients at once, each on a keep-alive connection of its own.

It prints a table per size, then the ratios of the largest size to the smallest: CPU and queries should stay within
1.2x. Under 32 clients a two-core machine queues: about 32 requests share 2 cores, so the p95 under load is near
16x a request's time at any size; the ratio that says whether history costs is the loaded p95's, largest to smallest.
The databases are dropped at the end (--keep keeps them).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import psutil

from benchmarks.api import ASGI, ROOT, free_port, played_document, start_gunicorn

BOTS, OWNERS, ENTRANTS, REPLAYS, RUNNING = 200, 50, 16, 100, 5
BUSY = 20  # the first bot's extra share of the ladder's games (`pair`)
TOURNAMENT_SHARE = 0.02  # of the matches, in the round robin's sets
CLIENTS = 32
CPU_RATIO, LOADED_RATIO = 1.2, 3.0


def database_url(base: str, name: str) -> str:
    return urlsplit(base)._replace(path=f"/{name}").geturl()


def create_database(base: str, name: str) -> str:
    import psycopg

    admin = database_url(base, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return database_url(base, name)


def drop_database(base: str, name: str) -> None:
    import psycopg

    with psycopg.connect(database_url(base, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def use_database(url: str) -> None:
    """Point this process's Django at `url` (set up once; later sizes swap the default connection's database)."""
    os.environ.update(DATABASE_URL=url, DEBUG="1", DJANGO_SETTINGS_MODULE="config.settings")
    import django
    from django.apps import apps
    from django.db import connections

    if not apps.ready:
        django.setup()
    connections["default"].close()
    connections["default"].settings_dict["NAME"] = urlsplit(url).path.lstrip("/")


def fill(matches: int) -> dict[str, Any]:
    """Migrate and bulk-insert a history of `matches` matches; what the URLs need (ids)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from engine import load_game
    from tournaments.models import Bot, BotVersion, Ladder, LadderEntry, Rating

    call_command("migrate", verbosity=0)
    rng = random.Random(1)
    User = get_user_model()
    owners = User.objects.bulk_create([User(username=f"author{i}") for i in range(OWNERS)])
    bots = Bot.objects.bulk_create([Bot(owner=owners[i % OWNERS], name=f"bot{i}", game="evolution")
                                    for i in range(BOTS)])
    source = b"from engine.sdk import run\nrun(lambda view, decision: 0)\n"
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=bot, number=1, source=source, sha256="0" * 64, size=len(source), status="active")
        for bot in bots])
    options = load_game("evolution").validate_options({"deck": "short"})
    ladder = Ladder.objects.create(name="bench", game="evolution", options=options, players_per_match=2)
    LadderEntry.objects.bulk_create([LadderEntry(ladder=ladder, bot_version=v) for v in versions])
    Rating.objects.bulk_create([Rating(ladder=ladder, bot_version=v, mu=rng.gauss(25, 3), sigma=rng.uniform(1, 8),
                                       games=100, wins=50, seat_record=[[50, 30], [50, 20]]) for v in versions])
    games_per_set = max(1, round(matches * TOURNAMENT_SHARE / (ENTRANTS * (ENTRANTS - 1) // 2)))
    tournament, played = fill_tournament(versions[-ENTRANTS:], options, games_per_set, rng)
    fill_ladder(ladder, versions, options, matches - played - RUNNING, rng)
    fill_running(ladder, versions, options, rng)
    fill_replays(options)
    from tournaments.standings import rebuild_standings

    rebuild_standings(tournament)  # inserted, not recorded: the rows record_result would have kept
    rebuild_standings(ladder)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # the planner's statistics, as autovacuum keeps them on a live database
    return {"ladder": ladder.pk, "tournament": tournament.pk, "bot": bots[0].pk, "version": versions[0].pk,
            "bot_name": bots[0].name,
            "last_round": ENTRANTS - 1, "games_per_set": games_per_set}


def fill_ladder(ladder: Any, versions: list[Any], options: dict[str, Any], count: int, rng: random.Random) -> None:
    from django.utils import timezone

    from tournaments.models import Match, Seat

    start = timezone.now() - timezone.timedelta(seconds=count)
    for first in range(0, count, 10_000):
        batch = Match.objects.bulk_create([
            Match(ladder=ladder, game="evolution", num_players=2, seed=i, options=options, status="finished",
                  attempts=1, rating_seq=i + 1, started_at=start + timezone.timedelta(seconds=i),
                  finished_at=start + timezone.timedelta(seconds=i))
            for i in range(first, min(count, first + 10_000))], batch_size=2_000)
        Seat.objects.bulk_create([
            Seat(match=m, number=n, bot_version=v, score=10 - n, rank=n + 1, rating_mu_before=25,
                 rating_mu_after=25 + (1 - 2 * n), rating_sigma_before=5, rating_sigma_after=4.9)
            for m in batch for n, v in enumerate(pair(m.seed, versions, rng))], batch_size=5_000)


def pair(index: int, versions: list[Any], rng: random.Random) -> list[Any]:
    """Two versions for a ladder game; the first bot (BUSY's) plays every BUSY-th game besides its share, so that
    it fills a page of the lists filtered by it at the smallest size too."""
    if index % BUSY == 0:
        return [versions[0], rng.choice(versions[1:])]
    return rng.sample(versions, 2)


def fill_running(ladder: Any, versions: list[Any], options: dict[str, Any], rng: random.Random) -> None:
    from django.utils import timezone

    from tournaments.models import Match, Seat

    now = timezone.now()
    running = Match.objects.bulk_create([Match(ladder=ladder, game="evolution", num_players=2, seed=i,
                                               options=options, status="running", started_at=now)
                                         for i in range(RUNNING)])
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=v)
                              for m in running for n, v in enumerate(rng.sample(versions, 2))])


def fill_tournament(entrants: list[Any], options: dict[str, Any], games_per_set: int,
                    rng: random.Random) -> tuple[Any, int]:
    """A finished round robin of the entrants, `games_per_set` games a set; it and its number of matches."""
    from django.utils import timezone

    from tournaments.formats.round_robin import schedule
    from tournaments.models import Entry, Match, Rating, Seat, Tournament

    tournament = Tournament.objects.create(name="bench cup", game="evolution", options=options,
                                           players_per_table=2, games_per_set=games_per_set, state="finished")
    Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in entrants])
    Rating.objects.bulk_create([Rating(tournament=tournament, bot_version=v, mu=25, sigma=5) for v in entrants])
    pairings = schedule(entrants, 2, games_per_set, 7)
    now = timezone.now()
    made = Match.objects.bulk_create([
        Match(tournament=tournament, round=p.round, table=p.table, game="evolution", num_players=2, seed=p.seed,
              options=options, status="finished", attempts=1, started_at=now, finished_at=now)
        for p in pairings], batch_size=2_000)
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=v, score=5 + n, rank=rng.choice([1, 2]))
                              for m, p in zip(made, pairings, strict=True) for n, v in enumerate(p.seats)],
                             batch_size=5_000)
    return tournament, len(made)


def fill_replays(options: dict[str, Any]) -> None:
    from replays import format as replay_format
    from replays.models import Replay
    from tournaments.models import Match

    document = played_document(options)
    actions = replay_format.encode_actions(document["actions"])
    newest = Match.objects.filter(status="finished", ladder__isnull=False).order_by("-pk")
    Replay.objects.bulk_create([Replay(match_id=pk, header=document["header"], actions=actions,
                                       footer=document["footer"], size=len(actions))
                                for pk in newest.values_list("pk", flat=True)[:REPLAYS]])


def urls(ids: dict[str, Any]) -> dict[str, str]:
    """Every page and API endpoint a reader reaches, at the ids of this data set."""
    from tournaments.models import Match

    replayed = Match.objects.filter(replay__isnull=False).order_by("-pk").values_list("pk", flat=True)[0]
    ladder, tournament, bot, version = ids["ladder"], ids["tournament"], ids["bot"], ids["version"]
    pages = {
        "page /": "/",
        "page /matches/": "/matches/",
        "page /matches/ 20 pages in": f"/matches/?before={deep_before(20 * 25)}",
        "page /matches/ by bot": f"/matches/?bot={ids['bot_name']}",
        "page ladder": f"/ladders/{ladder}/",
        "page tournament": f"/tournaments/{tournament}/",
        "page tournament, last round": f"/tournaments/{tournament}/?round={ids['last_round']}",
        "page bot": f"/bots/{bot}/",
        "page version": f"/versions/{version}/",
        "page tests": "/tests/",
    }
    api = {
        "api matches": "/api/matches/",
        "api matches, 100": "/api/matches/?page_size=100",
        "api matches 40 pages in": deep_cursor("/api/matches/", 40),
        "api matches of ladder": f"/api/matches/?ladder={ladder}&status=finished",
        "api matches of tournament": f"/api/matches/?tournament={tournament}",
        "api matches of bot": f"/api/matches/?bot={bot}",
        "api match": f"/api/matches/{replayed}/",
        "api ladders": "/api/ladders/",
        "api ladder": f"/api/ladders/{ladder}/",
        "api ladder standings": f"/api/ladders/{ladder}/standings/",
        "api tournaments": "/api/tournaments/",
        "api tournament": f"/api/tournaments/{tournament}/",
        "api tournament standings": f"/api/tournaments/{tournament}/standings/",
        "api bots": "/api/bots/",
        "api bot": f"/api/bots/{bot}/",
        "api versions": "/api/versions/",
        "api tests": "/api/tests/",
        "api games": "/api/games/",
        "api replay header": f"/api/matches/{replayed}/replay/",
        "api replay frames (20)": f"/api/matches/{replayed}/frames/?start=0&stop=20",
    }
    return {**pages, **api}


def deep_before(rank: int) -> int:
    """The `?before=` of the match list's page that starts `rank` matches in."""
    from tournaments.models import Match

    return int(Match.objects.order_by("-id").values_list("pk", flat=True)[rank - 1]) + 1


def deep_cursor(url: str, pages: int) -> str:
    from django.test import Client

    client = Client()
    for _ in range(pages):
        url = client.get(url, HTTP_HOST="127.0.0.1").json()["next"]
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def count_queries(urls: dict[str, str]) -> dict[str, int]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    counts = {}
    for name, url in urls.items():
        client.get(url, HTTP_HOST="127.0.0.1")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, HTTP_HOST="127.0.0.1")
        if response.status_code != 200:
            raise SystemExit(f"GET {url}: {response.status_code} {response.content[:300]!r}")
        counts[name] = len(queries)
    return counts


def workers_cpu(server: Any) -> float:
    """CPU seconds (user + system) of the gunicorn master's worker processes so far."""
    total = 0.0
    for child in psutil.Process(server.pid).children(recursive=True):
        times = child.cpu_times()
        total += times.user + times.system
    return total


def get(conn: http.client.HTTPConnection, url: str) -> float:
    """One request's milliseconds. A keep-alive connection the server closed while it idled (uvicorn's keep-alive
    timeout, while the other servers took their turn) is opened again and the request timed from there."""
    try:
        started = time.perf_counter()
        conn.request("GET", url, headers={"Host": "127.0.0.1", "Accept": "*/*"})
        response = conn.getresponse()
    except (http.client.RemoteDisconnected, ConnectionError):
        conn.close()
        started = time.perf_counter()
        conn.request("GET", url, headers={"Host": "127.0.0.1", "Accept": "*/*"})
        response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"GET {url}: {response.status} {body[:300]!r}")
    return (time.perf_counter() - started) * 1000


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


def turns(count: int, rounds: int) -> list[list[int]]:
    """The order the servers take their turns in, each round: forwards, then backwards, so none always goes first."""
    return [list(range(count)) if i % 2 == 0 else list(reversed(range(count))) for i in range(rounds)]


def measure_idle(servers: list[Any], ports: list[int], urls: list[str], requests: int,
                 ) -> tuple[list[float], list[float]]:
    """Per server: idle p95 (ms) and CPU per request (ms), sequential requests on one keep-alive connection each,
    alternating between the servers so that each sees the same moments of a busy machine."""
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=120) for port in ports]
    for conn, url in zip(conns, urls, strict=True):
        for _ in range(5):
            get(conn, url)
    cpu = [workers_cpu(server) for server in servers]
    samples: list[list[float]] = [[] for _ in ports]
    for order in turns(len(ports), requests):
        for which in order:
            samples[which].append(get(conns[which], urls[which]))
    spent = [(workers_cpu(server) - before) * 1000 / requests for server, before in zip(servers, cpu, strict=True)]
    for conn in conns:
        conn.close()
    return [p95(s) for s in samples], spent


def measure_loaded(ports: list[int], urls: list[str], rounds: int) -> list[float]:
    """Per server: p95 (ms) with CLIENTS clients at once, each on a keep-alive connection of its own; a round sends
    one request a client to each server in turn."""
    conns = [[http.client.HTTPConnection("127.0.0.1", port, timeout=300) for _ in range(CLIENTS)] for port in ports]
    samples: list[list[float]] = [[] for _ in ports]
    with ThreadPoolExecutor(CLIENTS) as pool:
        for which, url in enumerate(urls):  # each client's connection opened, untimed
            list(pool.map(lambda conn, url=url: get(conn, url), conns[which]))
        for order in turns(len(ports), rounds):
            for which in order:
                samples[which] += pool.map(lambda conn, url=urls[which]: get(conn, url), conns[which])
    for row in conns:
        for conn in row:
            conn.close()
    return [p95(s) for s in samples]


def build(base: str, prefix: str, size: int) -> dict[str, Any]:
    """A database of `size` matches, its URLs and each URL's queries."""
    name = f"{prefix}_{size}_{secrets.token_hex(3)}"
    url = create_database(base, name)
    use_database(url)
    started = time.monotonic()
    ids = fill(size)
    built = time.monotonic() - started
    print(f"{size:,} matches: built in {built:.0f} s (database {name}, {ids['games_per_set']} games a set in "
          f"the round robin)", file=sys.stderr)
    targets = urls(ids)
    queries = count_queries(targets)
    from django.db import connections

    connections.close_all()
    return {"name": name, "url": url, "urls": targets, "queries": queries, "build_s": round(built)}


def run_sizes(base: str, sizes: list[int], args: argparse.Namespace) -> dict[int, dict[str, dict[str, float]]]:
    """Build every size, serve each with a server of its own, and measure them side by side."""
    built: dict[int, dict[str, Any]] = {}
    servers = []
    try:
        for size in sizes:
            built[size] = build(base, args.db_prefix, size)
        ports = [args.port + i if args.port else free_port() for i in range(len(sizes))]
        servers = [start_gunicorn(built[size]["url"], port, ROOT, ASGI, "0")
                   for size, port in zip(sizes, ports, strict=True)]
        tables: dict[int, dict[str, dict[str, float]]] = {size: {} for size in sizes}
        for label in built[sizes[0]]["urls"]:
            targets = [built[size]["urls"][label] for size in sizes]
            idle, cpu = measure_idle(servers, ports, targets, args.idle_requests)
            loaded = measure_loaded(ports, targets, args.loaded_rounds)
            for i, size in enumerate(sizes):
                tables[size][label] = {"cpu_ms": round(cpu[i], 2), "queries": built[size]["queries"][label],
                                       "idle_p95_ms": round(idle[i], 1), "loaded_p95_ms": round(loaded[i], 1)}
        return tables
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
        if not args.keep:
            for size in built:
                drop_database(base, built[size]["name"])


def print_table(size: int, table: dict[str, dict[str, float]]) -> None:
    print(f"\n{size:,} matches (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"{'URL':<30} {'CPU ms':>7} {'queries':>8} {'idle p95':>9} {f'{CLIENTS} clients p95':>17}")
    for label, row in table.items():
        print(f"{label:<30} {row['cpu_ms']:>7.2f} {row['queries']:>8} {row['idle_p95_ms']:>9.1f} "
              f"{row['loaded_p95_ms']:>17.1f}")


def print_ratios(small: int, large: int, tables: dict[int, dict[str, dict[str, float]]]) -> bool:
    """The largest size against the smallest; whether every URL keeps CPU and queries within CPU_RATIO."""
    print(f"\nratios {large:,} / {small:,} (targets: CPU and queries <= {CPU_RATIO}x; {CLIENTS}-client p95 "
          f"<= {LOADED_RATIO}x)")
    print(f"{'URL':<30} {'CPU':>6} {'queries':>8} {'idle p95':>9} {f'{CLIENTS} clients p95':>17}  "
          f"{'loaded/idle at ' + format(large, ','):>20}")
    ok = True
    for label, big in tables[large].items():
        little = tables[small][label]
        ratios = [big[key] / little[key] if little[key] else 1.0
                  for key in ("cpu_ms", "queries", "idle_p95_ms", "loaded_p95_ms")]
        over = ratios[0] > CPU_RATIO or ratios[1] > CPU_RATIO or ratios[3] > LOADED_RATIO
        ok = ok and not over
        print(f"{label:<30} {ratios[0]:>6.2f} {ratios[1]:>8.2f} {ratios[2]:>9.2f} {ratios[3]:>17.2f}  "
              f"{big['loaded_p95_ms'] / big['idle_p95_ms']:>20.1f}{'  over' if over else ''}")
    return ok


def run(args: argparse.Namespace) -> None:
    sizes = [int(n) for n in args.matches.split(",")]
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ludus")
    tables = run_sizes(base, sizes, args)
    for size in sizes:
        print_table(size, tables[size])
    ok = print_ratios(min(sizes), max(sizes), tables) if len(sizes) > 1 else True
    if args.json_path:
        with open(args.json_path, "w") as out:
            json.dump({str(size): table for size, table in tables.items()}, out, indent=2)
    if not ok:
        raise SystemExit(1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--matches", help="sizes of history, such as 1000,100000: a database of each, every page "
                                          "and API endpoint measured on it (this module's docstring)")
    parser.add_argument("--db-prefix", default="ludus_bench_api", help="with --matches: the databases' names start "
                                                                        "with it")
    parser.add_argument("--port", type=int, default=0,
                        help="with --matches: the first size's server port, the next sizes' the ports after it "
                             "(default: free ones)")
    parser.add_argument("--keep", action="store_true", help="with --matches: keep the databases")
    parser.add_argument("--requests-idle", dest="idle_requests", type=int, default=200,
                        help="with --matches: sequential requests per URL")
    parser.add_argument("--rounds-loaded", dest="loaded_rounds", type=int, default=4,
                        help=f"with --matches: requests per client, {CLIENTS} clients at once")
    parser.add_argument("--save", dest="json_path", help="with --matches: write the tables as JSON to this file")
