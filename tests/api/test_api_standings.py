"""`/api/ladders/{id}/standings/` and `/api/tournaments/{id}/standings/`."""

from __future__ import annotations

import pytest
from apiworld import World

from tournaments.models import Rating

pytestmark = pytest.mark.django_db


def test_it_orders_a_ladder_by_conservative_rating(world: World) -> None:
    Rating.objects.filter(ladder=world.ladder, bot_version=world.other_version).update(mu=30.0, sigma=2.0)
    rows = world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/standings/").json()["results"]
    assert [r["bot_version"] for r in rows] == [world.other_version.pk, world.version.pk]
    assert rows[0]["rating"] == pytest.approx(30.0 - 6.0)


def test_it_gives_a_tournaments_standings_with_seat_win_rates(world: World) -> None:
    from tournaments.models import Match

    Match.objects.filter(pk=world.finished.pk).update(ladder=None, tournament=world.tournament, round=1)
    body = world.client("anonymous").get(f"/api/tournaments/{world.tournament.pk}/standings/").json()
    assert {r["bot_version"] for r in body["results"]} == {world.version.pk, world.other_version.pk}
    assert sum(r["games"] for r in body["results"]) == 2
    assert sum(rate["games"] for rate in body["seat_win_rates"].values()) == 2


def test_it_gives_a_404_for_a_missing_ladder(world: World) -> None:
    assert world.client("anonymous").get("/api/ladders/987654321/standings/").status_code == 404
