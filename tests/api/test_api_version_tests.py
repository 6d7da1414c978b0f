"""POST, GET /api/tests/ and POST /api/tests/{id}/cancel/ (docs/version-tests.md): the attacks first, then one
clear 400 per bad input, then the filters.

Personas (tests/api/apiworld.py): alice (owner) keeps the public bot `hungry` (v1, v2) and the private `stealth`;
bob (author) owns `lazy`; charlie (organiser); root is staff.
"""

from __future__ import annotations

from typing import Any

import pytest
from apiworld import World

from tournaments.models import Match, VersionTest
from tournaments.version_tests import TestRequest, start_test

pytestmark = pytest.mark.django_db


def post(world: World, role: str, **body: Any) -> Any:
    return world.client(role).post("/api/tests/", body, format="json")


def private_test(world: World) -> VersionTest:
    """Alice's private version against her public one: a private test."""
    return start_test(world.users["owner"], TestRequest(new=world.private_version.pk, base=world.version.pk))


# --- the attacks ----------------------------------------------------------------------------------------------------


def test_nobody_but_its_owner_and_staff_sees_a_test_of_a_private_version(world: World) -> None:
    test = private_test(world)
    assert test.visibility == "private"
    for role in ("anonymous", "author", "organiser"):
        client = world.client(role)
        assert client.get(f"/api/tests/{test.pk}/").status_code == 404, role
        listed = client.get("/api/tests/").json()["results"]
        assert test.pk not in [row["id"] for row in listed], role
        assert client.get(f"/api/tests/?bot={world.private_bot.pk}").json()["results"] == [], role
        assert client.get(f"/tests/{test.pk}/").status_code == 404, role
        assert b"stealth" not in client.get("/tests/").content, role
        assert b"stealth" not in client.get(f"/bots/{world.bot.pk}/").content, role
    for role in ("owner", "admin"):
        answer = world.client(role).get(f"/api/tests/{test.pk}/")
        assert answer.status_code == 200 and answer.json()["new_label"] == "stealth@1", role


def test_another_authors_private_version_cannot_be_put_in_a_test(world: World) -> None:
    for key in ("new", "base"):
        body = {"new": world.other_version.pk, "base": world.other_version.pk, key: world.private_version.pk}
        answer = post(world, "author", **body)
        assert answer.status_code == 400
        assert answer.json() == {key: [f"no bot version {world.private_version.pk}"]}
    answer = post(world, "author", new=world.other_version.pk, base=world.version.pk,
                  field=[str(world.private_version.pk)], players=3)
    assert answer.json() == {"field": [f"no bot version {world.private_version.pk}"]}
    assert not VersionTest.objects.exists()


def test_the_seed_stays_secret_until_the_test_ends(world: World) -> None:
    answer = post(world, "author", new=world.other_version.pk, base=world.version.pk)
    assert answer.status_code == 201, answer.content
    test = VersionTest.objects.get(pk=answer.json()["id"])
    for role in ("anonymous", "author", "admin"):
        shown = world.client(role).get(f"/api/tests/{test.pk}/")
        assert shown.json()["seed"] is None and str(test.seed) not in shown.content.decode(), role
    assert world.client("author").post(f"/api/tests/{test.pk}/cancel/").status_code == 200
    # Ended, but its cancelled games could be requeued and dealt from it: still secret
    assert world.client("anonymous").get(f"/api/tests/{test.pk}/").json()["seed"] is None
    Match.objects.filter(version_test_game__test=test).update(status=Match.Status.FINISHED)
    for url in ("/api/tests/", f"/api/tests/{test.pk}/"):  # every game played: it opens, in the list too
        shown = world.client("anonymous").get(url).json()
        assert (shown["results"][0] if "results" in shown else shown)["seed"] == test.seed, url


def test_only_its_owner_or_staff_stops_a_test(world: World) -> None:
    test = start_test(world.users["author"], TestRequest(new=world.other_version.pk, base=world.version.pk))
    for role in ("owner", "organiser"):
        assert world.client(role).post(f"/api/tests/{test.pk}/cancel/").status_code == 403, role
    assert world.client("anonymous").post(f"/api/tests/{test.pk}/cancel/").status_code == 401
    assert world.client("admin").post(f"/api/tests/{test.pk}/cancel/").json()["status"] == "cancelled"
    answer = world.client("admin").post(f"/api/tests/{test.pk}/cancel/")
    assert answer.status_code == 400 and "only a running test stops" in answer.json()["detail"][0]


def test_anonymous_users_cannot_start_a_test(world: World) -> None:
    assert post(world, "anonymous", new=world.version.pk, base=world.version2.pk).status_code == 401


# --- starting one ---------------------------------------------------------------------------------------------------


def test_it_starts_a_test_and_queues_its_first_batch_below_ladder_matches(world: World) -> None:
    answer = post(world, "owner", new=world.version2.pk, base=world.version.pk, d1=0.1, batch_deals=2)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["status"], body["game"], body["players"], body["games_played"]) == ("running", "evolution", 2, 0)
    assert body["bounds"] == pytest.approx([-2.944, 2.944], abs=1e-3) and body["owner"] == "alice"
    games = world.client("owner").get(f"/api/tests/{body['id']}/").json()["games"]
    assert [(g["deal"], g["swapped"]) for g in games] == [(0, False), (0, True), (1, False), (1, True)]
    assert not Match.objects.filter(pk__in=[g["match"] for g in games], rated=True).exists()


BAD = [
    ({"new": "x"}, "new", "A valid integer is required."),
    ({"new": 987654321}, "new", "no bot version 987654321"),
    ({"players": 9}, "players", "players"),
    ({"field": ["nobody"], "players": 3}, "field", "'nobody' is neither a built-in bot nor a bot version id"),
    ({"d0": 0.05, "d1": 0.0}, "bounds", "the bounds must satisfy -1 < d0 < d1 < 1"),
    ({"alpha": 0.5}, "bounds", "alpha and beta must each be between 0 and 0.5 (exclusive)"),
    ({"alpha": 0.6}, "alpha", "Ensure this value is less than or equal to 0.5."),
    ({"max_games": 0}, "max_games", "Ensure this value is greater than or equal to 2."),
    ({"batch_deals": 500}, "batch_deals", "Ensure this value is less than or equal to 100."),
    ({"field": ["99999999999999999999"], "players": 3}, "field", "neither a built-in bot nor a bot version id"),
    ({"new": 2**63}, "new", "Ensure this value is less than or equal to"),
    ({"options": {"nope": 1}}, "options", "nope"),
    ({"colour": "red"}, "colour", "unknown field 'colour'"),
]


@pytest.mark.parametrize(("change", "field", "message"), BAD, ids=[row[1] for row in BAD])
def test_each_bad_input_is_a_400_naming_its_field(world: World, change: dict[str, Any], field: str,
                                                   message: str) -> None:
    answer = post(world, "owner", **({"new": world.version2.pk, "base": world.version.pk} | change))
    assert answer.status_code == 400, answer.content
    assert message in " ".join(answer.json()[field])
    assert not VersionTest.objects.exists()


# --- reading them ---------------------------------------------------------------------------------------------------


def test_the_list_filters_by_bot_and_author(world: World) -> None:
    mine = start_test(world.users["owner"], TestRequest(new=world.version2.pk, base=world.version.pk))
    bobs = start_test(world.users["author"], TestRequest(new=world.other_version.pk, base=world.other_version.pk))
    client = world.client("anonymous")

    def ids(query: str) -> list[int]:
        return [row["id"] for row in client.get(f"/api/tests/{query}").json()["results"]]

    assert ids("") == [bobs.pk, mine.pk]
    assert ids(f"?bot={world.bot.pk}") == [mine.pk]
    assert ids("?author=bob") == [bobs.pk]
    assert ids("?status=passed") == []
    assert client.get("/api/tests/?bot=x").status_code == 400
