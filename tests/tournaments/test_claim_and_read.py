"""The runner claims a match and reads it with its seats, versions and bots in one statement
(tournaments.services.claim_and_read): the claim stays a compare-and-set, and the objects are the ORM's own."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.db.models import Model
from django.db.models.functions import Now
from django.test.utils import CaptureQueriesContext

from tournaments.models import Match, Seat
from tournaments.scheduling import start_tournament
from tournaments.services import claim_and_read, loaded_match
from workers.runner import with_db_retry

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


@pytest.fixture(params=[True, False], ids=["one statement", "claim then read"])
def one_statement(request: pytest.FixtureRequest) -> bool:
    """claim_and_read's PostgreSQL way, and the other databases' (the claim, then the read), both on this one."""
    return bool(request.param)


def test_an_expired_lease_is_claimed_again(match: Match, one_statement: bool) -> None:
    assert claim_and_read(match.pk, "worker-a", one_statement=one_statement)
    assert claim_and_read(match.pk, "worker-b", one_statement=one_statement) == []
    Match.objects.filter(pk=match.pk).update(lease_expires=Now() - timedelta(days=1))
    loaded, seats = loaded_match(claim_and_read(match.pk, "worker-b", one_statement=one_statement))
    assert (loaded.status, loaded.lease_owner, loaded.attempts, len(seats)) == ("running", "worker-b", 2, 2)


def test_the_decline_window_lasts_a_lease(match: Match, one_statement: bool) -> None:
    Match.objects.filter(pk=match.pk).update(failed_by="broken@host", queued_at=Now())
    assert claim_and_read(match.pk, "run-1", worker="broken@host", one_statement=one_statement) == []
    long_ago = Now() - timedelta(seconds=settings.LUDUS_LEASE_SECONDS + 60)
    Match.objects.filter(pk=match.pk).update(queued_at=long_ago)
    loaded, _ = loaded_match(claim_and_read(match.pk, "run-2", worker="broken@host", one_statement=one_statement))
    assert (loaded.lease_owner, loaded.attempts) == ("run-2", 1)


@pytest.mark.django_db(transaction=True)  # with_db_retry retries only outside a transaction, as the runner calls it
def test_a_read_that_fails_after_the_claim_takes_the_claim_back(match: Match) -> None:
    failed: list[str] = []

    def fail_the_read_once(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if sql.startswith("SELECT") and '"tournaments_seat"' in sql and not failed:
            failed.append(sql)
            raise OperationalError("the connection broke during the read")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(fail_the_read_once):
        rows = with_db_retry(lambda: claim_and_read(match.pk, "worker-a", one_statement=False))
    assert failed and rows  # the retry claimed again: the failed read took the first claim back
    stored = Match.objects.get(pk=match.pk)
    assert (stored.status, stored.lease_owner, stored.attempts) == ("running", "worker-a", 1)


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return str(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)  # the runner claims outside any transaction
def test_a_claim_of_its_own_commits_without_waiting_for_the_disk(match: Match) -> None:
    with CaptureQueriesContext(connection) as queries:
        assert claim_and_read(match.pk, "worker-a")
    [claim] = queries.captured_queries
    assert synchronous_commit() == "on"  # the setting was the claim's transaction's alone
    Match.objects.filter(pk=match.pk).update(status="queued")
    with transaction.atomic(), connection.cursor() as cursor:  # the same statement, its transaction held open
        cursor.execute(claim["sql"])
        assert cursor.fetchall()
        assert synchronous_commit() == "off"


def test_a_claim_inside_a_callers_transaction_leaves_its_commit_waiting_for_the_disk(match: Match) -> None:
    assert claim_and_read(match.pk, "worker-a")  # pytest-django's transaction holds this test
    assert synchronous_commit() == "on"
