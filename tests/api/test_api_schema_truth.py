"""The schema says what the server does: the answers schemathesis cannot check by itself (NDJSON lines,
each role's shape of a version), and the inputs the schema forbids, each refused with a 400 naming the rule."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from apiworld import World, body_text, make_match

from tournaments.models import Entry, Match, Rating

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(world: World) -> dict[str, Any]:
    response = world.client("anonymous").get("/api/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema's null type, everywhere in the node."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: as_json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def check(schema: dict[str, Any], component: str, value: Any) -> None:
    document = {"$ref": f"#/components/schemas/{component}", "components": as_json_schema(schema["components"])}
    jsonschema.validate(value, document)


def lines(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, body_text(response)
    return [json.loads(line) for line in body_text(response).splitlines()]


def operation(schema: dict[str, Any], path: str, method: str = "get") -> dict[str, Any]:
    return schema["paths"][path][method]


def test_every_line_of_both_feeds_fits_its_documented_kind(world: World, schema: dict[str, Any]) -> None:
    client = world.client("owner")
    for match in (world.finished, world.running):
        feed = lines(client.get(f"/api/matches/{match.pk}/feed/"))
        assert {line["type"] for line in feed} >= {"match", "action"}
        for line in feed:
            check(schema, "MatchFeedLine", line)
    ladder = lines(client.get(f"/api/ladders/{world.ladder.pk}/feed/?since=2000-01-01T00:00:00Z"))
    assert [line["type"] for line in ladder] == ["ladder", "result", "timeout"]
    for line in ladder:
        check(schema, "LadderFeedLine", line)
    media = operation(schema, "/api/matches/{id}/feed/")["responses"]["200"]["content"]
    assert list(media) == ["application/x-ndjson"]


def test_frames_in_every_view_fit_their_documented_shape(world: World, schema: dict[str, Any]) -> None:
    for role, match, seat in (("anonymous", world.finished, None), ("anonymous", world.finished, 1),
                              ("anonymous", world.running, "public"), ("owner", world.running, 0)):
        body = world.client(role).get(f"/api/matches/{match.pk}/frames/", {} if seat is None else {"seat": seat})
        assert body.status_code == 200 and body.json()["frames"], (role, match.pk, seat)
        assert any(frame["decided"] for frame in body.json()["frames"])
        check(schema, "FramePage", body.json())


def test_a_version_has_the_owners_shape_for_the_owner_and_the_public_one_for_others(
    world: World, schema: dict[str, Any]
) -> None:
    path = f"/api/versions/{world.version.pk}/"
    mine = world.client("owner").get(path).json()
    theirs = world.client("author").get(path).json()
    check(schema, "OwnerVersion", mine)
    check(schema, "Version", theirs)
    assert "source_base64" in mine and "source_base64" not in theirs
    with pytest.raises(jsonschema.ValidationError):
        check(schema, "OwnerVersion", theirs)
    shapes = operation(schema, "/api/versions/{id}/")["responses"]["200"]["content"]["application/json"]["schema"]
    assert shapes == {"anyOf": [{"$ref": "#/components/schemas/OwnerVersion"},
                                {"$ref": "#/components/schemas/Version"}]}


def test_a_private_bots_seat_and_standing_fit_the_schema_as_others_see_them(world: World,
                                                                            schema: dict[str, Any]) -> None:
    """A hidden bot's seat or standing is mostly nulls: the schema must allow each null the API writes."""
    match = make_match(ladder=world.ladder, seed=21, versions=(world.private_version, world.other_version),
                       status=Match.Status.FINISHED)
    Rating.objects.create(ladder=world.ladder, bot_version=world.private_version, mu=30.0, sigma=2.0, games=9)
    Entry.objects.create(tournament=world.tournament, bot_version=world.private_version)
    for role in ("author", "owner"):
        client = world.client(role)
        hidden_seat = client.get(f"/api/matches/{match.pk}/").json()["seats"][0]
        assert (hidden_seat["bot_name"] == "private bot") == (role == "author")
        check(schema, "PaginatedMatchList", client.get("/api/matches/").json())
        ladder = client.get(f"/api/ladders/{world.ladder.pk}/standings/").json()
        assert (ladder["results"][0]["bot_version"] is None) == (role == "author")
        check(schema, "PaginatedLadderStandingList", ladder)
        table = client.get(f"/api/tournaments/{world.tournament.pk}/standings/").json()
        assert [row["bot_version"] for row in table["results"]].count(None) == 1  # the other one's private bot
        check(schema, "PaginatedTournamentStandingList", table)
        tournament = client.get(f"/api/tournaments/{world.tournament.pk}/").json()
        assert tournament["entries"].count(None) == 1  # the other one's private bot (apiworld.py enters bob's)
        check(schema, "Tournament", tournament)
        check(schema, "PaginatedTournamentList", client.get("/api/tournaments/").json())


@pytest.mark.parametrize("role", ["owner", "author", "admin"])
def test_a_missing_or_hidden_version_named_in_a_path_is_404(world: World, role: str) -> None:
    client = world.client(role)
    for missing in (0, 999999, *([world.private_version.pk] if role == "author" else [])):
        response = client.delete(f"/api/ladders/{world.ladder.pk}/entries/{missing}/")
        assert response.status_code == 404, (missing, body_text(response))
        assert response.json() == {"detail": f"bot version {missing} does not exist"}
    assert client.delete(f"/api/ladders/0/entries/{world.version.pk}/").status_code == 404


def test_public_reads_say_authentication_is_optional_and_writes_that_it_is_needed(schema: dict[str, Any]) -> None:
    for path, methods in schema["paths"].items():
        for method, spec in methods.items():
            anonymous = {} in spec["security"]
            assert anonymous == (method == "get" or path == "/api/auth/token/"), (method, path)


def test_filters_declare_enums_and_integer_ids_and_no_format_switch(schema: dict[str, Any]) -> None:
    parameters = {p["name"]: p["schema"] for p in operation(schema, "/api/matches/")["parameters"]}
    # The games registered when the API was imported: the two real ones, and the tests' toy game when a test of this
    # process registered it first.
    assert [game for game in parameters["game"]["enum"] if game != "tinynim"] == ["evolution", "marine"]
    assert parameters["ladder"] == parameters["bot"] == {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
    upload = schema["components"]["schemas"]["UploadRequest"]["properties"]
    jsonschema.validate("marine", dict(upload["game"], components=schema["components"]))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate("chess", dict(upload["game"], components=schema["components"]))
    assert upload["name"]["pattern"]
    feed = operation(schema, "/api/matches/{id}/feed/")
    assert "format" not in {p["name"] for p in feed.get("parameters", [])}
    assert "stop` must be greater than `start`" in operation(schema, "/api/matches/{id}/frames/")["description"]


def test_a_tournament_format_filter_is_a_filter_not_a_renderer_switch(world: World) -> None:
    response = world.client("anonymous").get("/api/tournaments/?format=round_robin")
    assert response.status_code == 200 and [t["id"] for t in response.json()["results"]] == [world.tournament.pk]
    assert world.client("anonymous").get("/api/tournaments/?format=swiss").json()["results"] == []


BAD_QUERIES = {
    "a float id": ("/api/matches/?ladder=5.7e%2B193", "ladder", "whole number"),
    "a zero id": ("/api/versions/?bot=0", "bot", "greater than or equal to 1"),
    "an unknown game": ("/api/bots/?game=chess", "game", "known games: evolution, marine"),
    "an empty status": ("/api/matches/?status=", "status", "status is empty"),
    "an empty date": ("/api/matches/?finished_before=", "finished_before", "leave it out"),
    "a null boolean": ("/api/ladders/?paused=null", "paused", "paused must be true or false, got 'null'"),
}


@pytest.mark.parametrize("path, field, message", BAD_QUERIES.values(), ids=BAD_QUERIES.keys())
def test_it_refuses_a_query_the_schema_forbids_naming_the_rule(world: World, path: str, field: str,
                                                              message: str) -> None:
    response = world.client("owner").get(path)
    assert response.status_code == 400, response.content
    assert message in response.json()[field][0]


def test_it_refuses_a_number_where_text_belongs(world: World) -> None:
    response = world.client("owner").patch(f"/api/bots/{world.bot.pk}/", {"description": 0}, format="json")
    assert response.status_code == 400
    assert response.json() == {"description": ["field 'description' must be a string, got 0"]}


def test_strict_request_bodies_say_they_take_no_other_fields(schema: dict[str, Any]) -> None:
    assert schema["components"]["schemas"]["PatchedBotRequest"]["additionalProperties"] is False
    assert schema["components"]["schemas"]["MatchRequestRequest"]["additionalProperties"] is False
