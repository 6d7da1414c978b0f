"""N+1 guard: for every list endpoint, the number of queries for a page of 100 equals that for a page of 10."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from apiworld import GAME, World, full_options
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments.models import Bot, BotVersion, Entry, Ladder, Match, Rating, Seat, Tournament

pytestmark = pytest.mark.django_db
MANY = 110


@pytest.fixture(scope="module")
def build_world(build_world: Callable[[], World]) -> Callable[[], World]:
    """The API tests' world, filled: built once for the module, each test in a savepoint (tests/api/conftest.py)."""

    def build() -> World:
        world = build_world()
        fill(world)
        return world

    return build


def fill(world: World) -> None:
    """MANY more of everything: bots with versions, ladders, tournaments, matches with seats, ratings, entries."""
    owner = world.users["author"]
    bots = Bot.objects.bulk_create([Bot(owner=owner, name=f"b{i}", game=GAME) for i in range(MANY)])
    versions = BotVersion.objects.bulk_create([BotVersion(bot=b, number=1, status="active", sha256="0" * 64)
                                               for b in bots])
    Ladder.objects.bulk_create([Ladder(name=f"l{i}", game=GAME, created_by=owner) for i in range(MANY)])
    Tournament.objects.bulk_create([Tournament(name=f"t{i}", game=GAME, created_by=owner) for i in range(MANY)])
    matches = Match.objects.bulk_create([
        Match(ladder=world.ladder, game=GAME, num_players=2, seed=i, options=full_options(), status="finished")
        for i in range(MANY)])
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=versions[(i + n) % MANY], rank=n + 1, score=1)
                              for i, m in enumerate(matches) for n in range(2)])
    Rating.objects.bulk_create([Rating(ladder=world.ladder, bot_version=v, mu=25, sigma=8) for v in versions])
    Entry.objects.bulk_create([Entry(tournament=world.tournament, bot_version=v) for v in versions])
    tournament_matches = Match.objects.bulk_create([
        Match(tournament=world.tournament, round=1, game=GAME, num_players=2, seed=i, status="finished")
        for i in range(MANY)])
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=versions[(i + n) % MANY], rank=n + 1, score=1)
                              for i, m in enumerate(tournament_matches) for n in range(2)])


# Each list endpoint's queries for a page, at most, for a reader with a token (one query more than anonymous: the
# token). A change that adds one fails here, as one that makes them grow with the page fails below.
MOST = {"/api/bots/": 3, "/api/versions/": 3, "/api/ladders/": 3, "/api/tournaments/": 5, "/api/matches/": 5,
        "/api/matches/?bot={bot}": 5, "/api/ladders/{ladder}/standings/": 7,
        "/api/tournaments/{tournament}/standings/": 7, "/api/games/": 1}
LISTS = list(MOST)


def count_queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, f"{url}: {response.status_code} {response.content[:200]!r}"
    return len(queries)


@pytest.mark.parametrize("role", ["anonymous", "owner", "admin"])
@pytest.mark.parametrize("path", LISTS)
def test_it_makes_as_many_queries_for_100_rows_as_for_10(world: World, path: str, role: str) -> None:
    url = path.format(bot=world.other_bot.pk, ladder=world.ladder.pk, tournament=world.tournament.pk)
    client = world.client(role)
    joiner = "&" if "?" in url else "?"
    small = count_queries(client, f"{url}{joiner}page_size=10")
    large = count_queries(client, f"{url}{joiner}page_size=100")
    assert small == large, f"{url} as {role}: {small} queries for 10 rows, {large} for 100"
    assert large <= MOST[path], f"{url} as {role}: {large} queries, at most {MOST[path]} before"
