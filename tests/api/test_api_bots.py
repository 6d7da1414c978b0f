"""`/api/bots/` and `/api/versions/`: metadata for everyone who may see the bot; sources and logs for owners."""

from __future__ import annotations

import base64

import pytest
from apiworld import World

from tournaments.models import Bot

pytestmark = pytest.mark.django_db


def test_it_lists_public_bots_and_your_own_private_ones(world: World) -> None:
    names = {role: {b["name"] for b in world.client(role).get("/api/bots/").json()["results"]}
             for role in ("anonymous", "owner", "admin")}
    assert names["anonymous"] == {"hungry", "lazy"}
    assert names["owner"] == {"hungry", "lazy", "stealth"}
    assert names["admin"] == {"hungry", "lazy", "stealth", "secret"}  # bob's private bot too


def test_it_shows_the_latest_version_number(world: World) -> None:
    body = world.client("anonymous").get(f"/api/bots/{world.bot.pk}/").json()
    assert body["latest_version"] == 2 and body["owner"] == "alice"


def test_it_lets_the_owner_change_the_description_and_visibility(world: World) -> None:
    response = world.client("owner").patch(f"/api/bots/{world.bot.pk}/",
                                           {"description": "eats", "visibility": "private"}, format="json")
    assert response.status_code == 200
    world.bot.refresh_from_db()
    assert (world.bot.description, world.bot.visibility) == ("eats", Bot.Visibility.PRIVATE)


def test_it_refuses_to_rename_a_bot(world: World) -> None:
    response = world.client("owner").patch(f"/api/bots/{world.bot.pk}/", {"name": "other"}, format="json")
    assert response.status_code == 400
    assert "read-only" in response.json()["name"][0]


def test_it_lists_versions_without_sources_or_logs(world: World) -> None:
    rows = world.client("owner").get("/api/versions/", {"bot": world.bot.pk}).json()["results"]
    assert [row["number"] for row in rows] == [1, 2]
    assert all("source_base64" not in row and "validation_log" not in row for row in rows)


def test_it_gives_the_owner_the_source_and_the_log(world: World) -> None:
    body = world.client("owner").get(f"/api/versions/{world.version.pk}/").json()
    assert base64.b64decode(body["source_base64"]) == bytes(world.version.source)
    assert body["validation_log"] == "alice-validation-log"


def test_it_gives_others_the_metadata_only(world: World) -> None:
    body = world.client("author").get(f"/api/versions/{world.version.pk}/").json()
    assert body["sha256"] == world.version.sha256
    assert "source_base64" not in body and "validation_log" not in body


def test_it_filters_versions_by_status(world: World) -> None:
    world.version2.status = "retired"
    world.version2.save()
    rows = world.client("owner").get("/api/versions/", {"status": "retired"}).json()["results"]
    assert [row["id"] for row in rows] == [world.version2.pk]
