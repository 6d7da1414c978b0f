"""`/api/matches/` pages by cursor (keyset on the id): a walk through the pages while new matches land sees each
older match once, a cursor the API did not give is a 404 that says so (never a 500, nor page 1), and a page deep in
the list costs the queries of the first."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from apiworld import GAME, World, full_options
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments.models import Match, Seat

pytestmark = pytest.mark.django_db


def add_matches(world: World, count: int) -> list[int]:
    """`count` finished ladder matches of alice's and bob's bots, newest last; their ids."""
    made = Match.objects.bulk_create([
        Match(ladder=world.ladder, game=GAME, num_players=2, seed=i, options=full_options(), status="finished")
        for i in range(count)])
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=v, rank=n + 1, score=1)
                              for m in made for n, v in enumerate((world.version, world.other_version))])
    return [m.pk for m in made]


def walk(world: World, url: str, between: int) -> list[int]:
    """The ids of every page from `url` on, following `next`, with `between` new matches made before each page."""
    client = world.client("anonymous")
    seen: list[int] = []
    while url:
        add_matches(world, between)
        page = client.get(url).json()
        seen += [row["id"] for row in page["results"]]
        url = page["next"]
    return seen


@pytest.mark.parametrize("query", ["", "&ladder={ladder}", "&bot={bot}&status=finished"])
def test_it_shows_each_older_match_once_while_new_ones_land(world: World, query: str) -> None:
    add_matches(world, 23)
    filters = query.format(ladder=world.ladder.pk, bot=world.other_bot.pk)
    client = world.client("anonymous")
    first = client.get(f"/api/matches/?page_size=5{filters}").json()
    before = [row["id"] for row in first["results"]]
    expected = [row["id"] for row in client.get(f"/api/matches/?page_size=100{filters}").json()["results"]]
    seen = before + walk(world, first["next"], between=3)
    assert len(seen) == len(set(seen)), "a match shown twice"
    assert seen == expected, "a match skipped, or out of order"


def cursor(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# What a client might send as a cursor: each is a 404 that names the cursor (not page 1, nor a 500 from the database).
BAD_CURSORS = {
    "not base64": "%%%",
    "base64 of nothing it knows": cursor("hello"),
    "a position that is no id": cursor("p=abc"),
    "a position past any id": cursor("p=99999999999999999999999"),
    "a negative position": cursor("p=-3"),
    "a superscript digit": cursor("p=²"),
    "a negative offset": cursor("o=-1&p=5"),
    "not ascii": "é",
}


@pytest.mark.parametrize("value", BAD_CURSORS.values(), ids=BAD_CURSORS.keys())
def test_it_answers_a_cursor_it_did_not_give_with_a_404_that_says_so(world: World, value: str) -> None:
    response = world.client("anonymous").get("/api/matches/", {"cursor": value})
    assert response.status_code == 404, response.content
    assert "the cursor is not one of this list's" in response.json()["detail"]


def queries_of(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.content
    return len(queries)


def test_a_deep_page_costs_the_queries_of_the_first(world: World) -> None:
    add_matches(world, 60)
    client = world.client("anonymous")
    url = "/api/matches/?page_size=5"
    first = queries_of(client, url)
    for _ in range(8):
        url = client.get(url).json()["next"]
    assert queries_of(client, url) == first <= 4


def test_its_sql_reads_below_the_cursor_without_offset_or_count(world: World) -> None:
    add_matches(world, 12)
    client = world.client("anonymous")
    deep = client.get("/api/matches/?page_size=5").json()["next"]
    with CaptureQueriesContext(connection) as queries:
        client.get(deep)
    page_query = next(q["sql"] for q in queries.captured_queries if 'FROM "tournaments_match"' in q["sql"])
    assert '"tournaments_match"."id" < ' in page_query and "OFFSET" not in page_query
    assert not any("COUNT(" in q["sql"] for q in queries.captured_queries)
