"""The embedded runner: the local process pool used without a broker plays matches on the caller's database."""

from __future__ import annotations

import time
from typing import Any

import pytest

from replays.models import Replay
from tournaments.models import Match
from tournaments.scheduling import start_tournament
from workers import embedded

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_it_plays_a_tournament_on_the_test_database(make_tournament: Any, settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
    settings.LUDUS_WORKER_CONCURRENCY = 2
    tournament = make_tournament(game="evolution")
    try:
        matches = start_tournament(tournament, enqueue=False)
        futures = [embedded.submit_match(m.pk) for m in matches]
        results = [f.result(timeout=300) for f in futures if f is not None]
    finally:
        embedded.shutdown()
    assert len(results) == len(matches) > 0
    assert embedded.errors() == []
    # The children wrote here, in pytest's test database, not in the database the environment names.
    assert set(Match.objects.filter(tournament=tournament).values_list("status", flat=True)) == {"finished"}
    assert Replay.objects.filter(match__tournament=tournament).count() == len(matches)
    # each child verified the replays of its matches once they were recorded
    assert set(Replay.objects.filter(match__tournament=tournament).values_list("verification", flat=True)) == {
        "verified"}


def test_a_shutdown_that_does_not_wait_stops_the_work_in_flight(settings: Any) -> None:
    """What a test (or a stopping demo) leaves running is stopped, not waited for; the pool starts again on demand."""
    import psutil

    settings.LUDUS_WORKER_CONCURRENCY = 1
    busy = embedded.pool().submit(time.sleep, 600)
    embedded._futures.append(busy)  # recorded as submit_match records a match's
    child = next(iter(embedded.pool()._processes.values()))  # the pool's one child, busy sleeping
    embedded.shutdown(wait=False)
    assert busy.done()  # failed: its process is gone (BrokenProcessPool), not finished
    assert embedded.errors() == []  # stopped, not crashed: nothing for a later caller to mistake for a crash
    assert not psutil.pid_exists(child.pid) or psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE
    assert embedded.pool().submit(sum, [1, 2]).result(timeout=300) == 3
    embedded.shutdown()
