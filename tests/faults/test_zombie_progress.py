"""Live progress is fenced by the lease: a thawed zombie writes no progress for a match it no longer holds.

The fault: a frozen worker, thawed after another worker finished its match, re-created the match's progress
row; failed matches kept theirs. The runner's progress writes now only land while its own lease holds, and a
failure, a cancellation or a result deletes the progress with the attempt.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db.models.functions import Now

from replays.progress import MatchProgress, live_actions, save_progress
from replays.store import drop_progress, store_replay
from tournaments.models import Match
from tournaments.scheduling import start_tournament
from tournaments.services import cancel_match, claim_match, fail_match, record_result
from workers.runner import play_match
from workers.tasks import requeue_expired_task

pytestmark = pytest.mark.django_db

ACTION = {"seat": 0, "choice": 0, "ms": 1}


def take_over(match: Match, zombie: str, successor: str) -> None:
    """The zombie's lease runs out while it is frozen and the successor claims the match."""
    Match.objects.filter(pk=match.pk, lease_owner=zombie).update(lease_expires=Now() - timedelta(seconds=1))
    assert claim_match(match.pk, successor)


def test_a_thawed_zombie_cannot_recreate_the_progress_of_a_match_another_runner_finished(tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    assert claim_match(match.pk, "zombie")
    assert save_progress(match.pk, 1, [ACTION], owner="zombie")
    take_over(match, "zombie", "successor")
    document, logs = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    record_result(match.pk, "successor", document, logs, store=store_replay)
    assert not MatchProgress.objects.filter(match_id=match.pk).exists()

    assert not save_progress(match.pk, 1, [ACTION, ACTION], owner="zombie")  # thawed: every write is refused
    assert not MatchProgress.objects.filter(match_id=match.pk).exists()


def test_a_zombie_cannot_overwrite_the_progress_of_the_attempt_that_holds_the_lease(tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    assert claim_match(match.pk, "zombie")
    take_over(match, "zombie", "successor")
    assert save_progress(match.pk, 2, [ACTION], owner="successor")
    assert not save_progress(match.pk, 1, [ACTION, ACTION, ACTION], owner="zombie")
    assert MatchProgress.objects.get(match_id=match.pk).attempt == 2
    assert live_actions(match) == [ACTION]


@pytest.mark.parametrize("ending", ["failed", "requeued", "cancelled"])
def test_a_match_that_ends_without_a_result_keeps_no_progress(tournament: Any, settings: Any, ending: str) -> None:
    settings.LUDUS_MATCH_ATTEMPTS = 1 if ending == "failed" else 3
    match = start_tournament(tournament, enqueue=False)[0]
    assert claim_match(match.pk, "runner")
    assert save_progress(match.pk, 1, [ACTION], owner="runner")
    if ending == "cancelled":
        assert cancel_match(match, ended=drop_progress)
    else:
        assert fail_match(match.pk, "runner", "the disk is full", ended=drop_progress) == ending
    assert not MatchProgress.objects.filter(match_id=match.pk).exists()


def test_the_reaper_drops_the_progress_of_an_expired_attempt(tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    assert claim_match(match.pk, "vanished")
    assert save_progress(match.pk, 1, [ACTION], owner="vanished")
    Match.objects.filter(pk=match.pk).update(lease_expires=Now() - timedelta(seconds=1))
    assert requeue_expired_task() == 1
    assert not MatchProgress.objects.filter(match_id=match.pk).exists()

