"""Workers that stop heartbeating (SIGSTOP): their leases expire, the reaper requeues, and after N tries it fails.

A failed match is unrated, keeps the cause for the admin, and the frozen workers, once thawed, write nothing.
"""

from __future__ import annotations

import signal
from typing import Any

import pytest
from faultkit import reap, wait_until

from replays.models import Replay
from replays.progress import live_actions
from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]


def freeze_once_playing(worker: Any, match: Match, attempt: int) -> str:
    """Wait until worker is in the middle of the match's attempt-th try, then SIGSTOP it; return its lease owner."""

    def playing() -> bool:
        match.refresh_from_db()
        return (match.status == "running" and match.attempts == attempt and worker.holds(match.lease_owner)
                and len(live_actions(match)) >= 10)

    wait_until(playing, 240, f"worker {worker.name} to be playing attempt {attempt}")
    worker.signal(signal.SIGSTOP)
    return match.lease_owner


def test_a_match_whose_workers_stop_heartbeating_is_requeued_then_failed_unrated_with_its_cause(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any, admin_user: Any,
    client: Any,
) -> None:
    fault_settings.LUDUS_MATCH_ATTEMPTS = 2  # the reaper runs here, so this process decides when to give up
    versions = slow_versions(2, 0.02)
    tournament = create_tournament(versions, name="frozen", game="evolution", players_per_table=2, seed=4,
                                   created_by=alice)
    first = worker_pool.start("first", redis_server.url, LUDUS_MATCH_ATTEMPTS="2")
    [match] = start_tournament(tournament)
    first_owner = freeze_once_playing(first, match, attempt=1)

    def requeued() -> bool:
        reap()
        match.refresh_from_db()
        return match.status == "queued"

    wait_until(requeued, 120, "the reaper to requeue the frozen worker's match")
    assert match.attempts == 1 and first_owner in match.error and "expired" in match.error

    second = worker_pool.start("second", redis_server.url, LUDUS_MATCH_ATTEMPTS="2")
    second_owner = freeze_once_playing(second, match, attempt=2)

    def failed() -> bool:
        reap()
        match.refresh_from_db()
        return match.is_done()

    wait_until(failed, 120, "the reaper to fail the match after its second frozen attempt")
    assert (match.status, match.attempts, match.rating_seq) == ("failed", 2, None)
    assert second_owner in match.error and "expired" in match.error

    # Thawed, both workers find their lease gone: they stop playing and record nothing.
    for worker in (first, second):
        worker.signal(signal.SIGCONT)
    for worker in (first, second):
        wait_until(lambda w=worker: "lease lost" in w.log() or "result refused" in w.log(), 180,
                   f"the thawed worker {worker.name} to give the match up")
    match.refresh_from_db()
    assert (match.status, match.rating_seq) == ("failed", None)
    assert not Replay.objects.filter(match=match).exists()
    assert list(tournament.ratings.values_list("games", flat=True)) == [0, 0]
    assert not match.seats.filter(rating_mu_after__isnull=False).exists()

    client.force_login(admin_user)
    page = client.get(f"/admin/tournaments/match/{match.pk}/change/")
    assert page.status_code == 200
    assert "expired before it recorded a result" in page.content.decode()
