"""The runner claims a match and reads it with its seats, versions and bots in one transaction
(tournaments.services.claim_and_read): the claim stays a compare-and-set, and the read is two statements."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.db.models import Model
from django.db.models.functions import Now
from django.test.utils import CaptureQueriesContext

from tournaments.models import Match, Seat
from tournaments.scheduling import start_tournament
from tournaments.services import claim_and_read
from workers.runner import with_db_retry

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(tournament: Any) -> Match:
    return start_tournament(tournament)[0]


def values(instance: Model) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def test_it_claims_and_reads_in_two_statements_the_match_and_its_seats(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(options={"pile": 7, "nested": {"b": [1, None]}}, branch_prefix=[])
    with CaptureQueriesContext(connection) as queries:
        loaded = claim_and_read(match.pk, "worker-a")
    assert len([q for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]) <= 2  # the test's savepoint
    assert loaded is not None
    claimed, seats = loaded
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.lease_owner, stored.attempts) == ("running", "worker-a", 1)
    assert values(claimed) == values(stored)
    assert claimed.options == {"pile": 7, "nested": {"b": [1, None]}}
    expected = list(Seat.objects.filter(match=match).select_related("match", "bot_version__bot").order_by("number"))
    assert [seat.number for seat in seats] == list(range(match.num_players)) == [s.number for s in expected]
    for seat, orm in zip(seats, expected, strict=True):
        assert values(seat) == values(orm)
        assert seat.match is claimed
    with CaptureQueriesContext(connection) as queries:
        assert [seat.bot_version.bot.name for seat in seats]  # nothing left to fetch
    assert len(queries) == 0


def test_a_second_claimer_reads_nothing(match: Match) -> None:
    assert claim_and_read(match.pk, "worker-a")
    assert claim_and_read(match.pk, "worker-b") is None
    assert claim_and_read(match.pk + 10_000, "worker-b") is None


def test_a_worker_that_failed_the_match_a_moment_ago_reads_nothing(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(failed_by="broken@host")
    assert claim_and_read(match.pk, "run-1", worker="broken@host") is None
    assert claim_and_read(match.pk, "run-2", worker="healthy@host")


def test_a_match_without_seats_is_read_alone(match: Match) -> None:
    Seat.objects.filter(match=match).delete()
    loaded = claim_and_read(match.pk, "worker-a")
    assert loaded is not None and (loaded[0].pk, loaded[1]) == (match.pk, [])


def test_an_expired_lease_is_claimed_again(match: Match) -> None:
    assert claim_and_read(match.pk, "worker-a")
    assert claim_and_read(match.pk, "worker-b") is None
    Match.objects.filter(pk=match.pk).update(lease_expires=Now() - timedelta(days=1))
    loaded = claim_and_read(match.pk, "worker-b")
    assert loaded is not None
    claimed, seats = loaded
    assert (claimed.status, claimed.lease_owner, claimed.attempts, len(seats)) == ("running", "worker-b", 2, 2)


def test_the_decline_window_lasts_a_lease(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(failed_by="broken@host", queued_at=Now())
    assert claim_and_read(match.pk, "run-1", worker="broken@host") is None
    long_ago = Now() - timedelta(seconds=settings.LUDUS_LEASE_SECONDS + 60)
    Match.objects.filter(pk=match.pk).update(queued_at=long_ago)
    loaded = claim_and_read(match.pk, "run-2", worker="broken@host")
    assert loaded is not None and (loaded[0].lease_owner, loaded[0].attempts) == ("run-2", 1)


@pytest.mark.django_db(transaction=True)  # with_db_retry retries only outside a transaction, as the runner calls it
def test_a_read_that_fails_after_the_claim_takes_the_claim_back(match: Match) -> None:
    failed: list[str] = []

    def fail_the_read_once(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.startswith("SELECT") and '"tournaments_seat"' in sql and not failed:
            failed.append(sql)
            raise OperationalError("the connection broke during the read")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(fail_the_read_once):
        loaded = with_db_retry(lambda: claim_and_read(match.pk, "worker-a"))
    assert failed and loaded  # the retry claimed again: the failed read took the first claim back
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.lease_owner, stored.attempts) == ("running", "worker-a", 1)
