"""Leases live on the database's clock: a host whose clock runs 30 s ahead (or behind) reaps nothing healthy.

The fault: a reaper host 30 s ahead, with 12 s leases, reaped matches that were playing and heartbeating, and
one match failed after three attempts. Claim, renewal and reaping now compare with now() in SQL, so a host's clock
never enters: the test moves this process's clock and nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.db.models.functions import Now
from django.utils import timezone

from tournaments.models import Match
from tournaments.scheduling import start_tournament
from tournaments.services import claim_match, renew_lease, requeue_expired

pytestmark = pytest.mark.django_db


@pytest.fixture
def skewed_clock() -> Iterator[Any]:
    """This host's clock, settable: timezone.now() answers real time plus `skew` seconds."""
    real_now = timezone.now

    class Clock:
        skew = 0.0

    with mock.patch("django.utils.timezone.now", lambda: real_now() + timedelta(seconds=Clock.skew)):
        yield Clock


def database_now() -> Any:
    """now() as the services read it (Django's Now(): the statement's time on PostgreSQL)."""
    return Match.objects.annotate(now=Now()).values_list("now", flat=True).first()


@pytest.mark.parametrize("skew", [30.0, -30.0])
def test_a_host_with_a_skewed_clock_neither_reaps_a_healthy_lease_nor_shortens_one(
    tournament: Any, settings: Any, skewed_clock: Any, skew: float
) -> None:
    settings.LUDUS_LEASE_SECONDS = 12
    match = start_tournament(tournament, enqueue=False)[0]
    skewed_clock.skew = -skew  # the worker's host, the other way: the two hosts disagree by 30 s
    assert claim_match(match.pk, "worker-a")
    skewed_clock.skew = skew  # the reaper's host
    assert requeue_expired() == 0
    assert renew_lease(match.pk, "worker-a")
    assert requeue_expired() == 0
    match.refresh_from_db()
    assert match.status == "running" and match.attempts == 1
    left = (match.lease_expires - database_now()).total_seconds()
    assert 10 < left <= 12  # a full lease from the database's now, whatever either host's clock said


def test_an_expired_lease_is_reaped_whatever_the_reapers_clock_says(
    tournament: Any, settings: Any, skewed_clock: Any
) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    assert claim_match(match.pk, "vanished-worker")
    Match.objects.filter(pk=match.pk).update(lease_expires=database_now() - timedelta(seconds=1))
    skewed_clock.skew = -3600.0  # a reaper an hour behind still sees the lease as over
    assert requeue_expired() == 1
    match.refresh_from_db()
    assert match.status == "queued" and "vanished-worker" in match.error
