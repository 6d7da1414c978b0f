"""The admin: every model lists, filters and searches; bad tournaments are refused; match and version actions."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from replays.progress import MatchProgress, save_progress
from tournaments.models import BotVersion, Match, Tournament
from tournaments.scheduling import start_tournament
from tournaments.services import claim_match

pytestmark = pytest.mark.django_db

MODELS = ["tournaments/bot", "tournaments/botversion", "tournaments/ladder", "tournaments/tournament",
          "tournaments/match", "tournaments/seat", "tournaments/rating", "tournaments/entry", "replays/replay"]


@pytest.fixture
def staff(admin_user: Any) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_every_model_has_a_searchable_list(staff: Client, model: str, tournament: Any) -> None:
    response = staff.get(f"/admin/{model}/", {"q": "greedy"})
    assert response.status_code == 200


def tournament_form(versions: list[BotVersion], **fields: Any) -> dict[str, Any]:
    data = {"name": "spring cup", "game": "evolution", "options": "{}", "format": "round_robin",
            "players_per_table": "2", "games_per_set": "1", "seed": "0", "state": "draft", "move_ms": "1000",
            "bank_ms": "10000", "max_faults": "3", "rounds": "0", "best_of": "1",
            "entry_set-TOTAL_FORMS": str(len(versions)), "entry_set-INITIAL_FORMS": "0",
            "entry_set-MIN_NUM_FORMS": "0", "entry_set-MAX_NUM_FORMS": "1000"}
    for index, version in enumerate(versions):
        data[f"entry_set-{index}-bot_version"] = str(version.pk)
    data.update(fields)
    return data


BAD_TOURNAMENTS = [
    ({"game": "chess"}, "unknown game &#x27;chess&#x27;"),
    ({"options": '{"colour": "red"}'}, "unknown option(s) &#x27;colour&#x27; for evolution"),
    ({"options": '{"reserve_size": "lots"}'}, "option &#x27;reserve_size&#x27; must be an integer"),
    ({"players_per_table": "9"}, "evolution takes 2-6 players, got 9"),
    ({"players_per_table": "3"}, "a table of 3 needs at least 3 bots, got 2"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_TOURNAMENTS, ids=[m[:30] for _, m in BAD_TOURNAMENTS])
def test_it_refuses_a_bad_tournament_with_a_form_error(
    staff: Client, builtin_versions: dict[str, BotVersion], fields: dict[str, str], message: str
) -> None:
    data = tournament_form([builtin_versions["greedy"], builtin_versions["random"]], **fields)
    response = staff.post(reverse("admin:tournaments_tournament_add"), data)
    assert response.status_code == 200, "the form was accepted"
    assert message in response.content.decode()
    assert Tournament.objects.count() == 0


def test_it_creates_a_good_tournament_with_its_entries(staff: Client, builtin_versions: dict[str, BotVersion]) -> None:
    data = tournament_form([builtin_versions["greedy"], builtin_versions["random"]])
    response = staff.post(reverse("admin:tournaments_tournament_add"), data)
    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.entries.count() == 2 and tournament.created_by is not None


def test_it_cancels_and_requeues_matches(staff: Client, tournament: Any) -> None:
    first, second = start_tournament(tournament, enqueue=False)[:2]
    changelist = reverse("admin:tournaments_match_changelist")
    staff.post(changelist, {"action": "cancel_matches", "_selected_action": [first.pk, second.pk]})
    assert set(Match.objects.filter(pk__in=[first.pk, second.pk]).values_list("status", flat=True)) == {"cancelled"}
    staff.post(changelist, {"action": "requeue_matches", "_selected_action": [first.pk]})
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.attempts, second.status) == ("queued", 0, "cancelled")


def test_the_admins_cancel_drops_the_progress(staff: Client, tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    assert claim_match(match.pk, "runner")
    assert save_progress(match.pk, 1, [{"seat": 0, "choice": 0, "ms": 1}], owner="runner")
    staff.post(reverse("admin:tournaments_match_changelist"),
               {"action": "cancel_matches", "_selected_action": [match.pk]})
    assert Match.objects.get(pk=match.pk).status == "cancelled"
    assert not MatchProgress.objects.filter(match_id=match.pk).exists()


def test_a_requeued_try_out_stays_unrated(staff: Client, tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    Match.objects.filter(pk=match.pk).update(status="failed", rated=False)  # an unrated match that failed
    staff.post(reverse("admin:tournaments_match_changelist"),
               {"action": "requeue_matches", "_selected_action": [match.pk]})
    match.refresh_from_db()
    assert (match.status, match.rated) == ("queued", False)


def test_a_match_page_shows_its_seats_and_error(staff: Client, tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    Match.objects.filter(pk=match.pk).update(status="failed", error="RuntimeError: the sandbox is gone")
    page = staff.get(reverse("admin:tournaments_match_change", args=[match.pk])).content.decode()
    assert "RuntimeError: the sandbox is gone" in page
    assert "greedy" in page and "Seats" in page


def test_it_retires_versions(staff: Client, builtin_versions: dict[str, BotVersion]) -> None:
    version = builtin_versions["random-2"]
    staff.post(reverse("admin:tournaments_botversion_changelist"),
               {"action": "retire_versions", "_selected_action": [version.pk]})
    version.refresh_from_db()
    assert version.status == BotVersion.Status.RETIRED
