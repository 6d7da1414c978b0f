"""`/api/ladders/{id}/standings/` and `/api/tournaments/{id}/standings/`."""

from __future__ import annotations

from typing import Any

import pytest
from apiworld import World

from tournaments.models import Rating
from tournaments.ratings import rate_seats

pytestmark = pytest.mark.django_db


def test_it_orders_a_ladder_by_conservative_rating(world: World) -> None:
    Rating.objects.filter(ladder=world.ladder, bot_version=world.other_version).update(mu=30.0, sigma=2.0)
    rows = world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/standings/").json()["results"]
    assert [r["bot_version"] for r in rows] == [world.other_version.pk, world.version.pk]
    assert rows[0]["rating"] == pytest.approx(30.0 - 6.0)


def test_it_marks_provisional_ratings_as_the_pages_do(world: World, settings: Any) -> None:
    """One rule (tournaments.rating_rule): no game yet, or sigma above LUDUS_PROVISIONAL_SIGMA (2.5 here)."""
    settings.LUDUS_PROVISIONAL_SIGMA = 2.5
    Rating.objects.filter(ladder=world.ladder, bot_version=world.other_version).update(sigma=2.0, games=3)
    Rating.objects.filter(ladder=world.ladder, bot_version=world.version).update(sigma=2.0, games=0)
    rows = world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/standings/").json()["results"]
    assert {r["bot_version"]: r["provisional"] for r in rows} == {world.other_version.pk: False,
                                                                 world.version.pk: True}
    Rating.objects.filter(ladder=world.ladder, bot_version=world.other_version).update(sigma=2.6)
    rows = world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/standings/").json()["results"]
    assert all(r["provisional"] for r in rows)


def test_it_gives_a_tournaments_standings_with_seat_win_rates(world: World) -> None:
    from tournaments.models import Match

    Match.objects.filter(pk=world.finished.pk).update(ladder=None, tournament=world.tournament, round=1)
    body = world.client("anonymous").get(f"/api/tournaments/{world.tournament.pk}/standings/").json()
    # bob's private entry is a row without its version to everyone else (apiworld.py)
    assert {r["bot_version"] for r in body["results"]} == {world.version.pk, world.other_version.pk, None}
    assert sum(r["games"] for r in body["results"]) == 2
    assert sum(rate["games"] for rate in body["seat_win_rates"].values()) == 2
    assert all(sorted(row["seats"]) == ["0", "1"] and sum(s["games"] for s in row["seats"].values()) == row["games"]
               for row in body["results"]), body["results"]


def test_a_ladder_table_gives_wins_by_seat_from_the_rated_results(world: World) -> None:
    seats = list(world.finished.seats.order_by("number"))
    for seat in seats:  # seat 1 wins: the world's finished game is a tie, and wins should differ by seat
        seat.rank = 2 - seat.number
        seat.save()
    rate_seats(world.finished, seats)  # what recording the finished match's result does
    body = world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/standings/").json()
    by_version = {row["bot_version"]: row["seats"] for row in body["results"]}
    assert by_version == {seat.bot_version_id: {str(n): {"games": int(n == seat.number),
                                                         "wins": int(n == seat.number and seat.rank == 1)}
                                                for n in range(2)}
                          for seat in seats}
    assert body["seat_win_rates"] == {str(seat.number): {"games": 1, "wins": int(seat.rank == 1)} for seat in seats}


def test_it_gives_a_404_for_a_missing_ladder(world: World) -> None:
    assert world.client("anonymous").get("/api/ladders/987654321/standings/").status_code == 404
