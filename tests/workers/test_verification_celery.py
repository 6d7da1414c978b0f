"""Every replay verified after its match, by a real Celery worker on a real Redis: a tampered replay reverts its
result and its ratings; a verification message that was lost is caught by the sweep (docs/architecture.md#replays)."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from replays.models import Replay
from tournaments.models import Match, Rating, StandingsRow
from tournaments.scheduling import start_tournament
from workers import runner
from workers.runner import run_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


@pytest.fixture
def recorded(make_tournament: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> list[Match]:
    """A tournament's first round played here and recorded, its verification messages lost."""
    monkeypatch.setattr(runner, "send_verification", lambda match_id: None)
    tournament = make_tournament(game="evolution")
    matches = start_tournament(tournament, enqueue=False)
    for match in matches:
        assert run_match(match.pk) == "finished"
    assert set(Replay.objects.filter(match__in=matches).values_list("verification", flat=True)) == {"verifying"}
    return matches


def verification(match: Match) -> str:
    return Replay.objects.filter(match=match).values_list("verification", flat=True).get()


def test_a_tampered_replay_is_found_by_the_verification_task_and_its_result_reverted(
    celery_worker_process: Any, recorded: list[Match], wait_until: Callable[..., Any]
) -> None:
    from workers.tasks import verify_replay_task

    tampered, honest = recorded[0], recorded[1]
    played = dict(Rating.objects.filter(tournament=tampered.tournament).values_list("bot_version_id", "games"))
    replay = Replay.objects.get(match=tampered)
    ranks = replay.footer["outcome"]["ranks"]
    replay.footer["outcome"]["ranks"] = ranks[::-1] if ranks != ranks[::-1] else [r + 1 for r in ranks]
    replay.save(update_fields=["footer"])
    for match in (tampered, honest):
        verify_replay_task.delay(match.pk)
    wait_until(lambda: "verifying" not in {verification(tampered), verification(honest)}, 120,
               "the worker to verify both replays")

    assert verification(honest) == "verified"
    assert verification(tampered) == "mismatch"
    tampered.refresh_from_db()
    assert tampered.status == "failed" and tampered.error.startswith("replay verification failed: outcome ranks")
    assert not tampered.seats.filter(rank__isnull=False).exists()
    # the ratings and standings no longer count the tampered result; the honest ones stay
    reverted = set(tampered.seats.values_list("bot_version_id", flat=True))
    counted = {version: games - (version in reverted) for version, games in played.items()}
    assert dict(Rating.objects.filter(tournament=tampered.tournament).values_list("bot_version_id", "games")) == counted
    rows = StandingsRow.objects.filter(tournament=tampered.tournament)
    assert {row.bot_version_id: row.games for row in rows} == counted
    call_command("recompute_ratings", "--check", stdout=io.StringIO())


def test_a_lost_verification_message_is_caught_by_the_sweep(
    celery_worker_process: Any, recorded: list[Match], wait_until: Callable[..., Any]
) -> None:
    from workers.tasks import sweep_unverified_replays_task

    lost, recent = recorded[0], recorded[1]
    Replay.objects.filter(match=lost).update(created_at=timezone.now() - timedelta(minutes=5))
    sweep_unverified_replays_task.delay()  # beat's, every LUDUS_VERIFY_SWEEP_SECONDS
    wait_until(lambda: verification(lost) != "verifying", 120, "the sweep to verify the old replay")

    assert verification(lost) == "verified"
    assert verification(recent) == "verifying"  # its message may still come: not swept yet
    lost.refresh_from_db()
    assert lost.status == "finished"
