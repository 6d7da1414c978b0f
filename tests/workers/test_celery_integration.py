"""A real Redis and a real Celery worker process run a whole tournament; every match ends with exactly one result."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command

from replays.models import Replay
from replays.verify import verify_document
from tournaments.cli import Entrant, create_and_start
from tournaments.models import Match, Rating, Seat, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

ENTRANTS = [Entrant("greedy", "greedy"), Entrant("random", "random"), Entrant("greedy-2", "greedy"),
            Entrant("random-2", "random"), Entrant("greedy-3", "greedy")]


def unfinished(tournament: Tournament) -> int:
    return tournament.matches.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).count()


def test_a_worker_runs_every_match_of_a_tournament_once(
    celery_worker_process: Any, wait_until: Callable[..., Any]
) -> None:
    fields = {"name": "integration", "game": "evolution", "players_per_table": 3, "games_per_set": 2,
              "options": {}, "seed": 11}
    tournament, matches = create_and_start(ENTRANTS, fields)  # C(5,3) tables x 2 games = 20 matches
    assert len(matches) == 20
    wait_until(lambda: unfinished(tournament) == 0, 600, "the worker to finish 20 matches")
    # each replay is verified after its match, by a task the runner sent; the round ends with the last of them
    verifying = Replay.objects.filter(match__tournament=tournament, verification="verifying")
    wait_until(lambda: not verifying.exists(), 120, "the worker to verify every replay")
    wait_until(lambda: Tournament.objects.get(pk=tournament.pk).state == Tournament.State.FINISHED, 60,
               "the tournament to finish")

    assert tournament.matches.filter(status=Match.Status.FINISHED).count() == 20
    assert Replay.objects.filter(match__tournament=tournament).count() == 20
    for match in tournament.matches.all():
        assert match.attempts == 1 and match.error == ""
        seats = list(match.seats.all())
        assert len(seats) == 3
        assert all(s.rank and s.score is not None and s.rating_mu_after is not None for s in seats)
        verify_document(match.replay.document())
        assert match.replay.verification == "verified"
    for rating in Rating.objects.filter(tournament=tournament):
        played = Seat.objects.filter(match__tournament=tournament, bot_version=rating.bot_version).count()
        assert rating.games == played == 12  # each entrant sits at C(4,2)=6 tables, 2 games each
    tournament.refresh_from_db()
    assert tournament.state == Tournament.State.FINISHED
    out = io.StringIO()
    call_command("recompute_ratings", "--tournament", str(tournament.pk), stdout=out)
    assert "ratings agree with history" in out.getvalue()


def test_sending_a_match_three_times_to_the_worker_keeps_one_result(
    celery_worker_process: Any, wait_until: Callable[..., Any]
) -> None:
    from workers.tasks import run_match_task

    fields = {"name": "thrice", "game": "evolution", "players_per_table": 4, "games_per_set": 1,
              "options": {}, "seed": 5}
    tournament, [match] = create_and_start(ENTRANTS[:4], fields)
    run_match_task.delay(match.pk)  # duplicate deliveries, as after a broker redelivery
    run_match_task.delay(match.pk)
    # One worker process takes tasks in order, so once a later match is done the duplicates have been handled.
    sentinel, [last] = create_and_start(ENTRANTS[1:], dict(fields, name="sentinel"))
    wait_until(lambda: unfinished(sentinel) == 0, 300, "the sentinel match to finish")
    match.refresh_from_db()
    assert match.status == "finished" and match.attempts == 1
    assert Replay.objects.filter(match=match).count() == 1
    assert sorted(Rating.objects.filter(tournament=tournament).values_list("games", flat=True)) == [1, 1, 1, 1]


def test_run_tournament_runs_through_the_worker_and_prints_standings(
    celery_worker_process: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("run_tournament", "--game", "evolution", "--bots", "greedy,random,random-2:random",
                 "--players", "3", "--games", "3", "--seed", "3", "--timeout", "300")
    out = capsys.readouterr().out
    assert "3 bots, 3 matches" in out
    for name in ("greedy@1", "random@1", "random-2@1"):
        assert name in out
    assert "wins by seat" in out
    assert Match.objects.filter(status="finished").count() == 3


def test_the_reaper_task_hands_a_vanished_workers_match_to_a_live_worker(
    celery_worker_process: Any, wait_until: Callable[..., Any]
) -> None:
    from datetime import timedelta

    from django.db.models.functions import Now

    from tournaments.builtins import ensure_builtin
    from tournaments.scheduling import create_tournament, start_tournament
    from tournaments.services import claim_match
    from workers.tasks import requeue_expired_task

    versions = [ensure_builtin(e.name, e.builtin) for e in ENTRANTS[:2]]
    tournament = create_tournament(versions, name="reaped", game="evolution", players_per_table=2, seed=1)
    [match] = start_tournament(tournament, enqueue=False)
    assert claim_match(match.pk, "ghost-worker")  # a worker that took it and died, its lease long over
    Match.objects.filter(pk=match.pk).update(lease_expires=Now() - timedelta(seconds=60))

    requeue_expired_task.delay()
    wait_until(lambda: unfinished(tournament) == 0, 300, "the reaped match to be run again")
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("finished", 2)
    assert Replay.objects.filter(match=match).count() == 1
