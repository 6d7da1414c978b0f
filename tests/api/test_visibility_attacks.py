"""Attacks on who sees what, as an ordinary user or an anonymous visitor would make them (tournaments/visibility.py).

Personas (tests/api/apiworld.py): alice (owner) keeps the private bot `stealth`; bob (author) owns `lazy`; charlie
(organiser) runs the ladder and the tournament; root is staff.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from apiworld import World, finished_document, make_match
from django.test import Client

from replays.models import Replay
from tournaments.formats.round_robin import derive_seed
from tournaments.ladders import join_ladder, schedule_ladder
from tournaments.models import BotVersion, Match, Tournament

pytestmark = pytest.mark.django_db
MISSING = 987_654_321


def request_match(world: World, role: str, *seats: int) -> Any:
    return world.client(role).post("/api/matches/", {"ladder": world.ladder.pk, "seats": list(seats)},
                                   format="json")


def same_answer(first: Any, second: Any, first_id: int, second_id: int) -> bool:
    """Two error answers equal but for the id the request named."""
    return (first.status_code == second.status_code
            and first.content.decode().replace(str(first_id), "ID") == second.content.decode().replace(
                str(second_id), "ID"))


# --- seating someone else's private version -------------------------------------------------------------------------


def test_an_author_cannot_seat_someone_elses_private_version(world: World) -> None:
    private = request_match(world, "author", world.other_version.pk, world.private_version.pk)
    missing = request_match(world, "author", world.other_version.pk, MISSING)
    assert private.status_code == 400, private.content
    assert same_answer(private, missing, world.private_version.pk, MISSING), (private.content, missing.content)
    assert not Match.objects.filter(seats__bot_version=world.private_version).exists()


def test_an_inactive_private_version_answers_like_a_missing_one_and_is_not_named(world: World) -> None:
    BotVersion.objects.filter(pk=world.private_version.pk).update(status=BotVersion.Status.RETIRED)
    private = request_match(world, "author", world.other_version.pk, world.private_version.pk)
    missing = request_match(world, "author", world.other_version.pk, MISSING)
    assert "stealth" not in private.content.decode()
    assert same_answer(private, missing, world.private_version.pk, MISSING), (private.content, missing.content)


def test_an_organiser_cannot_enter_someone_elses_private_version_in_a_tournament(world: World) -> None:
    body = {"name": "cup-2", "game": "evolution", "players_per_table": 2}
    client = world.client("organiser")
    private = client.post("/api/tournaments/", dict(body, entries=[world.version.pk, world.private_version.pk]),
                          format="json")
    missing = client.post("/api/tournaments/", dict(body, entries=[world.version.pk, MISSING]), format="json")
    assert private.status_code == 400, private.content
    assert same_answer(private, missing, world.private_version.pk, MISSING)
    patched = client.patch(f"/api/tournaments/{world.tournament.pk}/",
                           {"entries": [world.version.pk, world.private_version.pk]}, format="json")
    assert patched.status_code == 400 and "stealth" not in patched.content.decode()
    assert not world.tournament.entry_set.filter(bot_version=world.private_version).exists()


def test_the_owner_and_staff_may_seat_the_private_version(world: World) -> None:
    assert request_match(world, "owner", world.private_version.pk, world.other_version.pk).status_code == 201
    assert request_match(world, "admin", world.private_version.pk, world.other_version.pk).status_code == 201


def test_only_the_owner_may_enter_a_private_version_on_a_ladder(world: World) -> None:
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        join_ladder(world.ladder, [world.private_version], by=world.users["author"])
    assert "stealth" not in str(refused.value)
    assert join_ladder(world.ladder, [world.private_version], by=world.users["owner"])


# --- seeds ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["anonymous", "owner", "author", "organiser"])
def test_a_running_or_queued_matchs_seed_is_hidden(world: World, role: str) -> None:
    client = world.client(role)
    for match in (world.running, world.queued):
        assert client.get(f"/api/matches/{match.pk}/").json()["seed"] is None, match
    rows = {row["id"]: row for row in client.get("/api/matches/").json()["results"]}
    assert rows[world.running.pk]["seed"] is None and rows[world.queued.pk]["seed"] is None
    assert rows[world.finished.pk]["seed"] == world.finished.seed


def test_staff_see_every_seed(world: World) -> None:
    assert world.client("admin").get(f"/api/matches/{world.running.pk}/").json()["seed"] == world.running.seed
    assert world.client("admin").get(f"/api/tournaments/{world.tournament.pk}/").json()["seed"] == 3


def test_a_tournaments_seed_is_hidden_until_it_is_over(world: World) -> None:
    url = f"/api/tournaments/{world.tournament.pk}/"
    assert world.client("organiser").get(url).json()["seed"] is None
    assert world.client("anonymous").get("/api/tournaments/").json()["results"][0]["seed"] is None
    Match.objects.filter(tournament=world.tournament).update(status=Match.Status.FINISHED)
    Tournament.objects.filter(pk=world.tournament.pk).update(state=Tournament.State.FINISHED)
    assert world.client("anonymous").get(url).json()["seed"] == 3


def test_a_new_tournament_gets_an_unguessable_seed(world: World) -> None:
    body = {"name": "cup-r", "game": "evolution", "players_per_table": 2,
            "entries": [world.version.pk, world.other_version.pk]}
    made = [world.client("organiser").post("/api/tournaments/", dict(body, name=f"cup-{i}"), format="json")
            for i in range(2)]
    seeds = [Tournament.objects.get(pk=response.json()["id"]).seed for response in made]
    assert seeds[0] != seeds[1] and min(seeds) > 2**31, seeds


def test_a_ladder_matchs_seed_cannot_be_computed_from_public_facts(world: World) -> None:
    join_ladder(world.ladder, [world.version, world.other_version])
    made = schedule_ladder(world.ladder.pk, enqueue=False)
    assert made
    guesses = {derive_seed(world.ladder.pk, n) for n in range(10_000)}
    assert not {match.seed for match in made} & guesses


@pytest.fixture
def set_sibling(world: World) -> tuple[Match, Match]:
    """Two games of one set (one seed): the first finished with its replay, the second still queued."""
    seed = 4_000_000_017
    first = make_match(tournament=world.tournament, round=2, seed=seed,
                       versions=(world.version, world.other_version), status=Match.Status.FINISHED)
    document = finished_document(first.pk, world.version.pk, world.other_version.pk)
    Replay.from_document(first, document).save()
    second = make_match(tournament=world.tournament, round=2, seed=seed,
                        versions=(world.other_version, world.version), status=Match.Status.QUEUED)
    return first, second


def test_a_finished_game_keeps_its_secrets_while_another_game_of_its_set_is_pending(
    world: World, set_sibling: tuple[Match, Match], client: Client
) -> None:
    first, _ = set_sibling
    api = world.client("author")
    assert api.get(f"/api/matches/{first.pk}/").json()["seed"] is None
    assert api.get(f"/api/matches/{first.pk}/replay/").status_code == 404
    assert api.get(f"/api/matches/{first.pk}/replay/actions/").status_code == 404
    assert api.get(f"/api/matches/{first.pk}/frames/").status_code == 403
    assert api.get(f"/api/matches/{first.pk}/frames/?seat=0").status_code == 403
    assert api.get(f"/api/matches/{first.pk}/frames/?seat=public").status_code == 200  # what every seat sees
    assert client.get(f"/replays/{first.pk}/export/").status_code == 404
    assert world.client("admin").get(f"/api/matches/{first.pk}/replay/").status_code == 200


# --- the viewer's frames of a running match -------------------------------------------------------------------------


def test_the_viewers_frames_of_a_running_match_carry_no_other_seats_choices(world: World, client: Client) -> None:
    client.force_login(world.users["owner"])  # the viewer page's session cookie, as its script sends it
    body = client.get(f"/api/matches/{world.running.pk}/frames/?seat=0").json()
    others = [frame for frame in body["frames"] if frame["action"] and frame["action"]["seat"] != 0]
    assert others, "the live match has actions of seat 1 so far"
    assert all("choice" not in frame["action"] and "choice" not in frame["decided"] for frame in others), others


# --- private bots seated by their owner -----------------------------------------------------------------------------


@pytest.fixture
def private_match(world: World) -> Match:
    """A finished ladder match that alice's private version played, seated by alice, with the runner's header."""
    match = make_match(ladder=world.ladder, seed=11, versions=(world.private_version, world.other_version),
                       status=Match.Status.FINISHED)
    document = finished_document(match.pk, world.private_version.pk, world.other_version.pk)
    document["header"]["seats"][0].update(bot="stealth", owner=str(world.private_bot.owner_id),
                                          sha256=world.private_version.sha256)
    Replay.from_document(match, document).save()
    return match


@pytest.mark.parametrize("role", ["anonymous", "author", "organiser"])
def test_a_private_bot_stays_unnamed_in_the_matches_it_plays(world: World, private_match: Match, role: str) -> None:
    api = world.client(role)
    urls = [f"/api/matches/{private_match.pk}/", "/api/matches/", f"/api/matches/{private_match.pk}/replay/",
            f"/api/matches/{private_match.pk}/feed/", f"/api/ladders/{world.ladder.pk}/standings/",
            f"/replays/{private_match.pk}/", "/matches/", "/", f"/ladders/{world.ladder.pk}/",
            f"/bots/{world.bot.pk}/", f"/bots/{world.other_bot.pk}/"]
    for url in urls:
        response = api.get(url)
        text = b"".join(response.streaming_content) if response.streaming else response.content
        assert response.status_code == 200, url
        assert b"stealth" not in text and world.private_version.sha256.encode() not in text, url
    export = api.get(f"/replays/{private_match.pk}/export/")
    assert export.status_code == 200


def test_the_owner_sees_their_private_bot_by_name(world: World, private_match: Match) -> None:
    body = world.client("owner").get(f"/api/matches/{private_match.pk}/").json()
    assert body["seats"][0]["bot_name"] == "stealth"


@pytest.mark.parametrize("role", ["anonymous", "author"])
def test_filtering_by_a_private_bot_finds_what_filtering_by_a_missing_one_finds(
    world: World, private_match: Match, role: str
) -> None:
    api = world.client(role)
    for name, value in (("bot_version", world.private_version.pk), ("bot", world.private_bot.pk)):
        assert api.get("/api/matches/", {name: value}).json()["results"] == []
    page = api.get("/matches/", {"bot": "stealth"}).content.decode()
    assert not re.search(rf"/replays/{private_match.pk}/", page)


def test_a_live_frame_shows_a_seat_owner_only_their_own_choices(world: World) -> None:
    body = world.client("author").get(f"/api/matches/{world.running.pk}/frames/", {"seat": 1}).json()
    actions = [frame["action"] for frame in body["frames"] if frame["action"]]
    assert {action["seat"] for action in actions} == {0, 1}
    assert all(("choice" in action) == (action["seat"] == 1) for action in actions), actions


@pytest.mark.parametrize("what", ["bots", "versions"])
def test_a_private_bots_page_answers_like_a_missing_ones(world: World, what: str) -> None:
    hidden = world.private_bot.pk if what == "bots" else world.private_version.pk
    for role in ("anonymous", "author"):
        client = world.client(role)
        private, missing = client.get(f"/{what}/{hidden}/"), client.get(f"/{what}/{MISSING}/")
        assert private.status_code == missing.status_code == 404
        assert private.content == missing.content
        api_private, api_missing = client.get(f"/api/{what}/{hidden}/"), client.get(f"/api/{what}/{MISSING}/")
        assert same_answer(api_private, api_missing, hidden, MISSING)
