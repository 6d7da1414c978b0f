"""The runner claims a match and reads it with its seats, versions and bots in one statement
(tournaments.services.claim_and_read): the claim stays a compare-and-set, and the objects are the ORM's own."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext

from tournaments.models import Match, Seat
from tournaments.scheduling import start_tournament
from tournaments.services import claim_and_read, loaded_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(tournament: Any) -> Match:
    return start_tournament(tournament)[0]


def values(instance: Model) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def test_it_claims_and_reads_in_one_statement_what_the_orm_reads(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(options={"pile": 7, "nested": {"b": [1, None]}}, branch_prefix=[])
    with CaptureQueriesContext(connection) as queries:
        loaded, seats = loaded_match(claim_and_read(match.pk, "worker-a"))
    assert len(queries) == 1
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.lease_owner, stored.attempts) == ("running", "worker-a", 1)
    assert values(loaded) == values(stored)  # the claimed row, JSON columns decoded, as the ORM reads it
    assert loaded.options == {"pile": 7, "nested": {"b": [1, None]}}
    expected = list(Seat.objects.filter(match=match).select_related("match", "bot_version__bot").order_by("number"))
    assert [seat.number for seat in seats] == list(range(match.num_players)) == [s.number for s in expected]
    for seat, orm in zip(seats, expected, strict=True):
        assert values(seat) == values(orm)
        assert values(seat.bot_version) == values(orm.bot_version)
        assert values(seat.bot_version.bot) == values(orm.bot_version.bot)
        assert seat.match is loaded and not seat._state.adding and seat._state.db == "default"
    with CaptureQueriesContext(connection) as queries:
        assert [seat.bot_version.bot.name for seat in seats]  # nothing left to fetch
    assert len(queries) == 0


def test_a_second_claimer_reads_nothing(match: Match) -> None:
    assert claim_and_read(match.pk, "worker-a")
    assert claim_and_read(match.pk, "worker-b") == []
    assert claim_and_read(match.pk + 10_000, "worker-b") == []


def test_a_worker_that_failed_the_match_a_moment_ago_reads_nothing(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(failed_by="broken@host")
    assert claim_and_read(match.pk, "run-1", worker="broken@host") == []
    assert claim_and_read(match.pk, "run-2", worker="healthy@host")


def test_a_match_without_seats_is_read_alone(match: Match) -> None:
    Seat.objects.filter(match=match).delete()
    loaded, seats = loaded_match(claim_and_read(match.pk, "worker-a"))
    assert (loaded.pk, seats) == (match.pk, [])
