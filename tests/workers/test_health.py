"""A worker's own health (workers/health.py): the breaker, the healthcheck's marker, and the attempts given back."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.models import Match
from tournaments.scheduling import start_tournament
from tournaments.services import claim_match, fail_match, refund_failures
from workers import health


def test_the_breaker_trips_once_after_the_limit_of_failures_in_a_row(settings: Any) -> None:
    settings.LUDUS_WORKER_FAILURE_LIMIT = 3
    breaker = health.Breaker()
    assert [breaker.record(o) for o in ("requeued", "failed", "finished", "requeued", "requeued")] == [False] * 5
    assert breaker.record("lease lost: gone") is False  # not the worker's failure: neither counts nor resets
    assert breaker.record("failed") is True
    assert breaker.record("failed") is False and breaker.tripped


def test_the_healthcheck_is_red_with_the_reason_once_the_marker_is_written(
    tmp_path: Any, settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.BASE_DIR = tmp_path
    assert health.check("w@host") == 0
    health.marker("w@host").parent.mkdir(parents=True)
    health.marker("w@host").write_text("3 infrastructure failures in a row; last: OSError: disk full\n")
    assert health.check("w@host") == 1
    assert "worker w@host stopped taking matches: 3 infrastructure failures" in capsys.readouterr().err


@pytest.mark.django_db
def test_a_broken_worker_gives_back_the_attempts_it_cost(tournament: Any, settings: Any) -> None:
    settings.LUDUS_MATCH_ATTEMPTS = 1
    first, second, third, *_ = start_tournament(tournament, enqueue=False)
    for match in (first, second):
        assert claim_match(match.pk, "run", worker="broken@host")
        fail_match(match.pk, "run", "OSError: disk full", failed_by="broken@host")
    assert claim_match(third.pk, "other", worker="healthy@host")
    fail_match(third.pk, "other", "a fault elsewhere", failed_by="healthy@host")
    assert refund_failures("broken@host") == 2
    rows = dict(Match.objects.values_list("pk", "status"))
    assert (rows[first.pk], rows[second.pk], rows[third.pk]) == ("queued", "queued", "failed")
    first.refresh_from_db()
    assert (first.attempts, first.failed_by, first.dispatched_at, first.finished_at) == (0, "", None, None)
