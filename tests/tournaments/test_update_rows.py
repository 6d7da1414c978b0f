"""update_rows (tournaments/ratings.py), the result's writes of seats, ratings and standings rows: each row gets its
own values in one statement, whatever their types: a column NULL in every row, text that needs quoting, floats to
the last digit, JSON and times."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments.models import Rating, Seat
from tournaments.ratings import update_rows
from tournaments.scheduling import start_tournament

pytestmark = pytest.mark.django_db

SEAT_FIELDS = ["score", "rank", "forfeited", "log", "rating_mu_before", "rating_sigma_after"]
RATING_FIELDS = ["mu", "games", "seat_record", "updated_at"]


def values(row: Any, fields: list[str]) -> list[Any]:
    return [getattr(row, name) for name in fields]


def test_each_seat_gets_its_own_values_in_one_statement(tournament: Any) -> None:
    seats = list(start_tournament(tournament)[0].seats.order_by("number"))
    for number, seat in enumerate(seats):
        seat.score, seat.rank, seat.forfeited = 10 - number, None, number == 1
        seat.log = f"seat {number}: 100% done, 'quoted' \\ %s\n"
        seat.rating_mu_before, seat.rating_sigma_after = 25.123456789012345 + number / 3, None
    with CaptureQueriesContext(connection) as queries:
        update_rows(Seat, seats, SEAT_FIELDS)
    assert len(queries) == 1
    for seat in seats:
        assert values(Seat.objects.get(pk=seat.pk), SEAT_FIELDS) == values(seat, SEAT_FIELDS)


@pytest.mark.parametrize("count", [1, 3])
def test_ratings_get_their_json_and_times(tournament: Any, count: int) -> None:
    entrants = [entry.bot_version for entry in tournament.entry_set.order_by("pk")][:count]
    ratings = [Rating.objects.create(tournament=tournament, bot_version=version, mu=25.0, sigma=8.3)
               for version in entrants]
    for number, rating in enumerate(ratings):
        rating.mu, rating.games = 20.5 + number, number
        rating.seat_record = [[number, 0], [2, 1], {"odd": None}][: number + 1]
        rating.updated_at = datetime(2026, 1, 2, 3, 4, 5, 600 + number, tzinfo=UTC)
    update_rows(Rating, ratings, RATING_FIELDS)
    for rating in ratings:
        assert values(Rating.objects.get(pk=rating.pk), RATING_FIELDS) == values(rating, RATING_FIELDS)
