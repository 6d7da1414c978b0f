"""`/api/ladders/` and `/api/tournaments/`: organisers create, start, pause and cancel theirs; everyone reads."""

from __future__ import annotations

import pytest
from apiworld import World

from tournaments.models import Ladder, Match, Tournament

pytestmark = pytest.mark.django_db


def test_it_creates_a_ladder_with_complete_options(world: World) -> None:
    response = world.client("organiser").post("/api/ladders/", {"name": "new", "game": "evolution",
                                                                "players_per_match": 3}, format="json")
    assert response.status_code == 201, response.content
    ladder = Ladder.objects.get(pk=response.json()["id"])
    assert ladder.created_by == world.users["organiser"]
    assert ladder.options["deck"] == "standard"  # the game's defaults filled in


def test_it_pauses_and_resumes_a_ladder(world: World) -> None:
    client = world.client("organiser")
    assert client.post(f"/api/ladders/{world.ladder.pk}/pause/").json()["paused"] is True
    assert client.post(f"/api/ladders/{world.ladder.pk}/resume/").json()["paused"] is False


def test_it_refuses_to_change_a_ladders_game(world: World) -> None:
    response = world.client("organiser").patch(f"/api/ladders/{world.ladder.pk}/", {"game": "marine"},
                                               format="json")
    assert response.status_code == 400


def test_it_creates_a_draft_tournament_with_entries(world: World) -> None:
    response = world.client("organiser").post(
        "/api/tournaments/", {"name": "spring", "game": "evolution", "players_per_table": 2,
                              "entries": [world.version.pk, world.other_version.pk]}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "draft"
    assert sorted(response.json()["entries"]) == sorted([world.version.pk, world.other_version.pk])


def test_it_refuses_entries_that_are_not_active(world: World) -> None:
    world.version2.status = "rejected"
    world.version2.save()
    response = world.client("organiser").post(
        "/api/tournaments/", {"name": "spring", "game": "evolution", "players_per_table": 2,
                              "entries": [world.version.pk, world.version2.pk]}, format="json")
    assert response.status_code == 400
    assert "not active" in str(response.json())


def test_it_starts_a_tournament_and_schedules_its_matches(world: World) -> None:
    response = world.client("organiser").post(f"/api/tournaments/{world.tournament.pk}/start/")
    assert response.status_code == 200 and response.json()["state"] == "running"
    assert Match.objects.filter(tournament=world.tournament, status="queued").count() >= 2  # the world's + new


def test_it_refuses_to_start_a_tournament_twice(world: World) -> None:
    client = world.client("organiser")
    client.post(f"/api/tournaments/{world.tournament.pk}/start/")
    response = client.post(f"/api/tournaments/{world.tournament.pk}/start/")
    assert response.status_code == 400 and "not a draft" in str(response.json())


def test_it_cancels_a_tournament_with_its_pending_matches(world: World) -> None:
    response = world.client("organiser").post(f"/api/tournaments/{world.tournament.pk}/cancel/")
    assert response.status_code == 200 and response.json()["state"] == "cancelled"
    world.queued.refresh_from_db()
    assert world.queued.status == Match.Status.CANCELLED
    again = world.client("organiser").post(f"/api/tournaments/{world.tournament.pk}/cancel/")
    assert again.status_code == 400


def test_it_refuses_to_change_a_running_tournament(world: World) -> None:
    Tournament.objects.filter(pk=world.tournament.pk).update(state="running")
    response = world.client("organiser").patch(f"/api/tournaments/{world.tournament.pk}/", {"seed": 4},
                                               format="json")
    assert response.status_code == 400


def test_it_lets_a_user_with_the_permission_organise(world: World) -> None:
    from django.contrib.auth.models import Permission

    bob = world.users["author"]
    bob.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    response = world.client("author").post("/api/ladders/", {"name": "bobs", "game": "evolution",
                                                             "players_per_match": 2}, format="json")
    assert response.status_code == 201


def test_it_filters_tournaments_by_state(world: World) -> None:
    rows = world.client("anonymous").get("/api/tournaments/", {"state": "draft"}).json()["results"]
    assert [row["id"] for row in rows] == [world.tournament.pk]
    assert world.client("anonymous").get("/api/tournaments/", {"state": "running"}).json()["count"] == 0


@pytest.mark.parametrize("role", ["anonymous", "owner", "organiser"])
def test_the_systems_internal_ladders_are_not_on_the_public_ladder_list(world: World, role: str) -> None:
    # Try-outs, validations and branches live in the system's paused ladders (docs/tournaments.md, "Unrated games"):
    # the list of ladders is the public one, and leaves them out for everyone but staff.
    from tournaments.system_ladders import TRYOUT_LADDER, system_ladder

    internal = system_ladder(TRYOUT_LADDER, "evolution", 2, "try-outs")
    listed = [row["id"] for row in world.client(role).get("/api/ladders/").json()["results"]]
    assert world.ladder.pk in listed and internal.pk not in listed
    staff = [row["id"] for row in world.client("admin").get("/api/ladders/").json()["results"]]
    assert internal.pk in staff and world.ladder.pk in staff
