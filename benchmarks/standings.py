"""A tournament's table from its standings rows against a recount of every finished seat (how every request read it
before the rows, docs/architecture.md#standings-rows), paired in one process: CPU milliseconds per table.

    python -m benchmarks.standings                 # 64 entrants, a round robin: 2,016 matches, 4,032 seats
    python -m benchmarks.standings --entrants 32 --repeats 30

It makes a database of its own on the PostgreSQL server of DATABASE_URL (default
postgres://postgres@127.0.0.1:5432/ludus), fills it with bulk inserts, builds the rows (rebuild_standings), checks
that both ways give the same table, then alternates them: `competition_standings` and the API's
`/api/tournaments/ID/standings/` as they are, and with the rows marked stale (the reader then recounts the seats).
Medians, minimum and maximum, and the median of the paired ratios.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit


def cpu_ms(call: Callable[[], Any]) -> float:
    started = time.process_time()
    call()
    return (time.process_time() - started) * 1000


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ms (min {min(values):.1f}, max {max(values):.1f})"


def measure(entrants: int, repeats: int) -> None:
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from tournaments.models import Bot, BotVersion, Entry, Match, Rating, Seat, Tournament
    from tournaments.standings import competition_standings, rebuild_standings, recounted_standings

    rng = random.Random(1)
    owner = get_user_model().objects.create_user("bench")
    bots = Bot.objects.bulk_create([Bot(owner=owner, name=f"b{i}", game="evolution") for i in range(entrants)])
    versions = BotVersion.objects.bulk_create([BotVersion(bot=bot, number=1, status="active", sha256="0" * 64)
                                               for bot in bots])
    tournament = Tournament.objects.create(name="bench", game="evolution", players_per_table=2, state="finished")
    Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in versions])
    pairs = [(a, b) for i, a in enumerate(versions) for b in versions[i + 1:]]
    matches = Match.objects.bulk_create([
        Match(tournament=tournament, round=1 + i % (entrants - 1), game="evolution", num_players=2, seed=i,
              status="finished") for i in range(len(pairs))])
    seats = []
    for match, pair in zip(matches, pairs, strict=True):
        first = rng.choice([1, 2])
        seats += [Seat(match=match, number=n, bot_version=v, score=rng.randint(0, 9), rank=rank)
                  for n, (v, rank) in enumerate(zip(pair, (first, 3 - first), strict=True))]
    Seat.objects.bulk_create(seats)
    Rating.objects.bulk_create([Rating(tournament=tournament, bot_version=v, mu=25, sigma=5) for v in versions])
    rebuild_standings(tournament)
    assert [s.to_dict() for s in competition_standings(tournament)] == [
        s.to_dict() for s in recounted_standings(tournament)]
    client, url = Client(), f"/api/tournaments/{tournament.pk}/standings/"
    stale = Tournament.objects.filter(pk=tournament.pk)
    samples: dict[str, list[float]] = {"rows": [], "recount": [], "api rows": [], "api recount": []}
    for _ in range(repeats):
        samples["rows"].append(cpu_ms(lambda: competition_standings(tournament)))
        samples["recount"].append(cpu_ms(lambda: recounted_standings(tournament)))
        samples["api rows"].append(cpu_ms(lambda: client.get(url, HTTP_HOST="127.0.0.1")))
        stale.update(standings_matches=0)
        samples["api recount"].append(cpu_ms(lambda: client.get(url, HTTP_HOST="127.0.0.1")))
        stale.update(standings_matches=len(pairs))
    print(f"{entrants} entrants, {len(pairs)} matches, {2 * len(pairs)} seats, {repeats} pairs")
    for way in ("", "api "):
        rows, recount = samples[f"{way}rows"], samples[f"{way}recount"]
        ratio = statistics.median([a / b for a, b in zip(rows, recount, strict=True)])
        print(f"{way or 'table '}rows {spread(rows)}; recount {spread(recount)}; rows/recount {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--entrants", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    on_own_database("standings", lambda: measure(args.entrants, args.repeats))


def on_own_database(purpose: str, run: Callable[[], None]) -> None:
    """Run with Django set up on a database of its own, created on the PostgreSQL server of DATABASE_URL (default
    postgres://postgres@127.0.0.1:5432/ludus) and dropped at the end."""
    import psycopg

    server = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ludus"))
    name = f"ludus_bench_{purpose}_{uuid.uuid4().hex[:8]}"
    admin = server._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        os.environ.update(DATABASE_URL=server._replace(path=f"/{name}").geturl(), DEBUG="0",
                          DJANGO_SETTINGS_MODULE="config.settings", ALLOWED_HOSTS="127.0.0.1",
                          SECRET_KEY=os.environ.get("SECRET_KEY", uuid.uuid4().hex * 2))
        import django

        django.setup()
        run()
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
