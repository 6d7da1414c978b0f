"""Three real Celery worker processes run competitions end to end on PostgreSQL and Redis.

- concurrent results are rated exactly once, in one serial order per competition, and recompute_ratings agrees;
- a Swiss and a single-elimination tournament of uploaded bots, each seat in the bwrap sandbox, advance round by
  round on their own (the result path schedules the next round) and finish with standings.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.management import call_command
from testkit import ROOT, clear_queues, ping_workers, start_celery_worker, stop_process, subprocess_env, wait_until

from tournaments.bot_lifecycle import upload_bot_version
from tournaments.builtins import ensure_builtin
from tournaments.models import BotVersion, Match, Rating, Seat, Tournament
from tournaments.ratings import MODEL
from tournaments.scheduling import create_tournament, start_tournament
from tournaments.standings import standings_data

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

WORKERS = 3
EXAMPLE = (ROOT / "examples" / "bots" / "evolution_bot.py").read_text()
FIRST_OPTION = "import ludus\n\nludus.run(lambda view, decision: 0)\n"
LAST_OPTION = "import ludus\n\nludus.run(lambda view, decision: len(decision['options']) - 1)\n"
UPLOADS = {
    "hungry": EXAMPLE,
    "grower": EXAMPLE.replace('CARD_USE = ["population", "body", "species", "trait", "avian"]',
                              'CARD_USE = ["body", "population", "trait", "species", "avian"]'),
    "first": FIRST_OPTION,
    "last": LAST_OPTION,
}
SHORT_EVOLUTION = {"deck": "short"}


@pytest.fixture(scope="module")
def celery_workers(django_db_setup: None, django_db_blocker: Any, celery_broker_url: str,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Three `celery -A config worker -c 1` processes, each its own worker, on the test database and Redis."""
    from django.conf import settings

    from config.celery import app

    clear_queues(celery_broker_url)
    settings.CELERY_BROKER_URL = celery_broker_url
    app.conf.broker_url = celery_broker_url
    with django_db_blocker.unblock():
        env = subprocess_env(CELERY_BROKER_URL=celery_broker_url)
    logs = tmp_path_factory.mktemp("celery3")
    names = [f"ludus-test3-{os.getpid()}-{index}" for index in range(WORKERS)]
    workers = [start_celery_worker(name, env, logs / f"worker{index}.log") for index, name in enumerate(names)]
    try:
        def all_answer() -> bool:
            dead = [w for w in workers if w.poll() is not None]
            if dead:
                pytest.fail(f"a Celery worker exited:\n{(logs / 'worker0.log').read_text()[-3000:]}")
            return len(ping_workers(names)) == WORKERS

        wait_until(all_answer, 120, "three workers to answer")
        yield workers
    finally:
        for worker in workers:
            worker.terminate()  # all at once, then wait for each
        for worker in workers:
            stop_process(worker)
        settings.CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL")


def pending(tournament: Tournament) -> bool:
    tournament.refresh_from_db()
    return tournament.state == Tournament.State.RUNNING


def assert_rated_once_in_one_serial_order(tournament: Tournament) -> None:
    """Every finished match has its own sequence number, and each bot's seats chain before → after in it."""
    matches = list(tournament.matches.filter(status=Match.Status.FINISHED, rated=True).order_by("rating_seq"))
    assert [m.rating_seq for m in matches] == list(range(1, len(matches) + 1))
    chains: dict[int, list[Seat]] = defaultdict(list)
    for seat in Seat.objects.filter(match__in=matches).order_by("match__rating_seq", "number"):
        chains[seat.bot_version_id].append(seat)
    for version_id, seats in chains.items():
        assert (seats[0].rating_mu_before, seats[0].rating_sigma_before) == (MODEL.mu, MODEL.sigma)
        for earlier, later in zip(seats, seats[1:], strict=False):
            assert (later.rating_mu_before, later.rating_sigma_before) == (earlier.rating_mu_after,
                                                                           earlier.rating_sigma_after)
        rating = Rating.objects.get(tournament=tournament, bot_version_id=version_id)
        assert (rating.mu, rating.sigma, rating.games) == (seats[-1].rating_mu_after, seats[-1].rating_sigma_after,
                                                           len(seats))
    call_command("recompute_ratings", "--check", "--tournament", str(tournament.pk), stdout=io.StringIO())


def test_three_workers_rate_every_result_exactly_once_in_one_serial_order(
    celery_workers: Any, wait_until: Callable[..., Any]
) -> None:
    versions = [ensure_builtin(f"rr-{i}", ["greedy", "random", "greedy_eps50"][i % 3]) for i in range(6)]
    tournament = create_tournament(versions, name="three workers", game="marine", players_per_table=2,
                                   games_per_set=2, seed=17)
    matches = start_tournament(tournament)
    assert len(matches) == 30
    wait_until(lambda: not pending(tournament), 900, "three workers to finish 30 matches")
    assert tournament.state == Tournament.State.FINISHED
    finished = tournament.matches.filter(status=Match.Status.FINISHED)
    assert finished.count() == 30 and not finished.exclude(attempts=1).exists()
    runners = {m.lease_owner.split(":")[1] for m in finished}  # host:pid:nonce
    assert len(runners) >= 2, "the matches were not shared between worker processes"
    assert_rated_once_in_one_serial_order(tournament)


def upload_entrants(owner: Any) -> list[BotVersion]:
    versions = []
    for name, source in UPLOADS.items():
        version = upload_bot_version(owner, name, "evolution", f"{name}.py", source.encode(), dispatch=False)
        version.status = BotVersion.Status.ACTIVE  # the smoke match is tested elsewhere (test_validation.py)
        version.save(update_fields=["status"])
        versions.append(version)
    return versions


needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")


@needs_bwrap
@pytest.mark.sandbox
@pytest.mark.parametrize(("format_", "rounds"), [("swiss", 2), ("single_elimination", 2)])
def test_a_tournament_of_uploaded_sandboxed_bots_runs_to_the_end_on_its_own(
    celery_workers: Any, wait_until: Callable[..., Any], alice: Any, format_: str, rounds: int
) -> None:
    versions = upload_entrants(alice)
    tournament = create_tournament(versions, name=f"uploaded {format_}", game="evolution", format=format_,
                                   players_per_table=2, games_per_set=2, seed=5, options=SHORT_EVOLUTION,
                                   created_by=alice)
    first = start_tournament(tournament)
    assert {m.round for m in first} == {1} and len(first) == 4
    wait_until(lambda: not pending(tournament), 900, f"the {format_} tournament to finish")
    assert tournament.state == Tournament.State.FINISHED and tournament.current_round == rounds
    matches = tournament.matches.all()
    assert sorted({m.round for m in matches}) == list(range(1, rounds + 1))
    assert not matches.exclude(status=Match.Status.FINISHED).exists(), [m.error for m in matches]
    assert all(not s.bot_version.builtin for m in matches for s in m.seats.all())
    data = standings_data(tournament)
    assert [r["games"] for r in data["rows"]] and sum(r["games"] for r in data["rows"]) == 2 * matches.count()
    if format_ == "single_elimination":
        assert [r["eliminated_round"] for r in data["rows"]] == [None, 2, 1, 1]
        assert matches.filter(round=2).count() == 2  # the final: one set of two games
    assert_rated_once_in_one_serial_order(tournament)
    out = io.StringIO()
    call_command("standings", "--tournament", str(tournament.pk), stdout=out)
    assert "wins by seat" in out.getvalue()
