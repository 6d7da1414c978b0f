"""Ladders: matches by rating, a bounded queue, pausing, the embedded run_ladder, and convergence to the true order."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.db.models import Q
from django.test import Client

from benchmarks.ladder_convergence import TRUE_ORDER, run_convergence
from tournaments.builtins import ensure_builtin
from tournaments.ladders import join_ladder, schedule_ladder, schedule_ladders
from tournaments.models import Bot, BotVersion, Ladder, Match, Rating
from tournaments.ratings import rating_differences, rebuild_ratings
from tournaments.standings import ladder_standings, standings_data
from workers.runner import run_match


def make_ladder(game: str = "tinynim", count: int = 4, **fields: Any) -> Ladder:
    values = {"name": "daily", "game": game, "players_per_match": 2, "max_queued": 3}
    values.update(fields)
    ladder = Ladder.objects.create(**values)
    join_ladder(ladder, [ensure_builtin(f"bot-{i}", "greedy" if i % 2 else "random") for i in range(count)])
    return ladder


def run_pending(ladder: Ladder) -> int:
    ids = list(ladder.matches.filter(status="queued").values_list("pk", flat=True))
    for match_id in ids:
        assert run_match(match_id) == "finished"
    return len(ids)


@pytest.mark.django_db
def test_it_keeps_a_bounded_number_of_matches_queued(tinynim: Any) -> None:
    ladder = make_ladder()
    assert len(schedule_ladder(ladder.pk, enqueue=False)) == 3
    assert schedule_ladder(ladder.pk, enqueue=False) == []  # full
    run_match(ladder.matches.first().pk)  # type: ignore[union-attr]
    assert len(schedule_ladder(ladder.pk, enqueue=False)) == 1
    assert ladder.matches.filter(status__in=["queued", "running"]).count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize("players", [2, 3, 4])
def test_tables_seat_distinct_active_entrants(tinynim: Any, players: int) -> None:
    ladder = make_ladder(count=6, players_per_match=players, max_queued=5)
    for match in schedule_ladder(ladder.pk, enqueue=False):
        versions = list(match.seats.values_list("bot_version_id", flat=True))
        assert len(versions) == len(set(versions)) == players == match.num_players


@pytest.mark.django_db
def test_a_paused_ladder_makes_no_matches(tinynim: Any) -> None:
    ladder = make_ladder(paused=True)
    assert schedule_ladder(ladder.pk, enqueue=False) == []
    assert schedule_ladders(enqueue=False) == 0


@pytest.mark.django_db
def test_withdrawn_and_retired_entrants_get_no_new_matches(tinynim: Any) -> None:
    ladder = make_ladder(count=3, max_queued=20)
    first, second, third = ladder.entry_set.order_by("pk")
    first.withdrawn_at = first.joined_at
    first.save()
    BotVersion.objects.filter(pk=second.bot_version_id).update(status=BotVersion.Status.RETIRED)
    assert schedule_ladder(ladder.pk, enqueue=False) == []  # one entrant left: no table of two


@pytest.mark.django_db
def test_the_same_history_gives_the_same_tables(tinynim: Any) -> None:
    ladder = make_ladder(count=6)
    tables = []
    for _ in range(2):
        with pytest.raises(RuntimeError), transaction.atomic():  # schedule, look, roll back
            tables.append([[s.bot_version.bot.name for s in m.seats.order_by("number")]
                           for m in schedule_ladder(ladder.pk, enqueue=False)])
            raise RuntimeError("roll back")
    assert tables[0] == tables[1] and len(tables[0]) == 3


@pytest.mark.django_db
def test_results_are_rated_in_sequence_and_recompute_agrees(tinynim: Any) -> None:
    ladder = make_ladder(count=5, max_queued=4)
    for _ in range(3):
        schedule_ladder(ladder.pk, enqueue=False)
        run_pending(ladder)
    seqs = list(ladder.matches.order_by("rating_seq").values_list("rating_seq", flat=True))
    assert seqs == list(range(1, 13))
    assert rating_differences(Q(ladder=ladder), Q(ladder=ladder)) == []
    rows = standings_data(ladder)["rows"]
    assert sum(r["games"] for r in rows) == 12 * 2
    assert all(r["provisional"] for r in rows)  # a dozen games do not settle sigma
    # Each rating's seat record (what the API's ladder table shows) is what the seats say.
    records = dict(Rating.objects.filter(ladder=ladder).values_list("bot_version_id", "seat_record"))
    assert records == {standing.version_id: standing.seat_record for standing in ladder_standings(ladder)}
    assert sum(games for record in records.values() for games, _ in record) == 12 * 2
    # A wrong record is a difference, and rebuilding the ratings restores it.
    wrong = Rating.objects.filter(ladder=ladder).first()
    assert wrong is not None
    Rating.objects.filter(pk=wrong.pk).update(seat_record=[[99, 99]])
    assert [f"{wrong.bot_version.label}: live"] == [p.split(" (")[0] for p in rating_differences(
        Q(ladder=ladder), Q(ladder=ladder))]
    rebuild_ratings(Ladder, ladder.pk)
    wrong.refresh_from_db()
    assert wrong.seat_record == records[wrong.bot_version_id]


@pytest.mark.django_db
def test_joining_refuses_an_inactive_version_or_another_game(alice: Any) -> None:
    ladder = Ladder.objects.create(name="x", game="marine", players_per_match=2)
    bot = Bot.objects.create(owner=alice, name="rejected", game="marine")
    rejected = BotVersion.objects.create(bot=bot, number=1, source=b"x", status=BotVersion.Status.REJECTED)
    with pytest.raises(ValidationError, match="rejected@1 is rejected, not active"):
        join_ladder(ladder, [rejected])
    other = Bot.objects.create(owner=alice, name="evo", game="evolution")
    evo = BotVersion.objects.create(bot=other, number=1, source=b"x", status=BotVersion.Status.ACTIVE)
    with pytest.raises(ValidationError, match="plays evolution, not marine"):
        join_ladder(ladder, [evo])
    assert not ladder.entry_set.exists()


@pytest.mark.django_db
def test_organisers_pause_a_ladder_in_the_admin(admin_user: Any, tinynim: Any) -> None:
    ladder = make_ladder()
    client = Client()
    client.force_login(admin_user)
    response = client.post("/admin/tournaments/ladder/", {"action": "pause_ladders", "_selected_action": [ladder.pk]})
    assert response.status_code == 302
    ladder.refresh_from_db()
    assert ladder.paused
    assert client.get(f"/admin/tournaments/ladder/{ladder.pk}/change/").status_code == 200


@pytest.mark.django_db
def test_bad_matchmaking_settings_fail_validation() -> None:
    with pytest.raises(ValidationError, match="unknown matchmaking setting"):
        Ladder(name="x", game="marine", players_per_match=2, matchmaking={"speed": 1}).full_clean()


@pytest.mark.django_db(transaction=True)
@pytest.mark.integration
def test_run_ladder_plays_its_rounds_in_the_embedded_pool(subprocess_env: Any, repo_root: Any) -> None:
    ladder = make_ladder(game="marine", count=4, max_queued=2)
    env = {k: v for k, v in subprocess_env(LUDUS_WORKER_CONCURRENCY="2").items() if k != "CELERY_BROKER_URL"}
    # In its own process, as `make demo` would run it: the pool and its helpers die with that process.
    done = subprocess.run([sys.executable, "manage.py", "run_ladder", "--rounds", "2", "--ladder", str(ladder.pk),
                           "--timeout", "300"], cwd=repo_root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert ladder.matches.filter(status=Match.Status.FINISHED).count() == 4
    assert "round 2: 2 new match(es)" in done.stdout and "daily: marine ladder" in done.stdout
    assert rating_differences(Q(ladder=ladder), Q(ladder=ladder)) == []
    with pytest.raises(CommandError, match="no ladder with id 999999"):
        call_command("run_ladder", "--ladder", "999999", stdout=io.StringIO())


@pytest.mark.django_db
@pytest.mark.slow
def test_a_ladder_ranks_eight_bots_of_known_strength_in_their_true_order() -> None:
    result = run_convergence(game="marine", players=2, max_games=1200, seed=1, stable_games=96)
    print(f"ladder convergence: true order after {result.settled_at} of {result.games} games")
    assert result.order == TRUE_ORDER
    ladder = Ladder.objects.get(name__startswith="convergence marine")
    assert [s.name.split("@")[0] for s in ladder_standings(ladder)] == [f"ladder-{n}" for n in TRUE_ORDER]
    assert rating_differences(Q(ladder=ladder), Q(ladder=ladder)) == []


@pytest.mark.django_db
def test_organisers_withdraw_an_entry_and_cancel_a_tournament_in_the_admin(
    admin_user: Any, tinynim: Any, make_tournament: Any
) -> None:
    from tournaments.models import Entry
    from tournaments.scheduling import start_tournament

    tournament = make_tournament(format="swiss")
    start_tournament(tournament, enqueue=False)
    entry = Entry.objects.filter(tournament=tournament).first()
    assert entry is not None
    client = Client()
    client.force_login(admin_user)
    response = client.post("/admin/tournaments/entry/", {"action": "withdraw_entries", "_selected_action": [entry.pk]})
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.withdrawn_at is not None
    assert not tournament.matches.filter(seats__bot_version=entry.bot_version, status="queued").exists()
    client.post("/admin/tournaments/tournament/", {"action": "cancel_tournaments", "_selected_action": [tournament.pk]})
    tournament.refresh_from_db()
    assert tournament.state == "cancelled"
