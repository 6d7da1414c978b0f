"""Bad input gets a 400 with a clear message: malformed JSON, wrong types, unknown fields, huge pages, bad filters."""

from __future__ import annotations

from typing import Any

import pytest
from apiworld import World

pytestmark = pytest.mark.django_db


def ladder_body(**fields: Any) -> dict[str, Any]:
    return {"name": "new-ladder", "game": "evolution", "players_per_match": 2, **fields}


# (method, path, body or raw bytes, role, a phrase the message must contain)
CASES: dict[str, tuple[str, str, Any, str, str]] = {
    "malformed JSON": ("post", "/api/ladders/", b'{"name": "x", ', "organiser", "JSON parse error"),
    "JSON that is not an object": ("post", "/api/ladders/", b"[1, 2]", "organiser", "Expected a dictionary"),
    "unknown field": ("post", "/api/ladders/", ladder_body(colour="red"), "organiser", "unknown field 'colour'"),
    "read-only field": ("post", "/api/ladders/", ladder_body(paused=True), "organiser", "field 'paused' is read-only"),
    "wrong type": ("post", "/api/ladders/", ladder_body(players_per_match="many"), "organiser",
                   "A valid integer is required"),
    "options not an object": ("post", "/api/ladders/", ladder_body(options=[1]), "organiser", "Expected a dictionary"),
    "bad option": ("post", "/api/ladders/", ladder_body(options={"deck": "huge"}), "organiser", "deck"),
    "unknown game": ("post", "/api/ladders/", ladder_body(game="chess"), "organiser", "unknown game 'chess'"),
    "too many players": ("post", "/api/ladders/", ladder_body(players_per_match=9), "organiser", "players"),
    "unknown field in a patch": ("patch", "/api/bots/{bot}/", {"nmae": "x"}, "owner", "unknown field 'nmae'"),
    "bad visibility": ("patch", "/api/bots/{bot}/", {"visibility": "secret"}, "owner", "not a valid choice"),
    "entries not ids": ("post", "/api/tournaments/", {"name": "c", "game": "evolution", "entries": ["x"]},
                        "organiser", "Incorrect type"),
    "match seats of the wrong count": ("post", "/api/matches/", {"ladder": "{ladder}", "seats": ["{version}"]},
                                       "owner", "plays 2 per match, got 1 seat"),
    "match seats not a list": ("post", "/api/matches/", {"ladder": "{ladder}", "seats": 3}, "owner",
                               "Expected a list"),
    "huge page": ("get", "/api/matches/?page_size=100000", None, "anonymous", "over the maximum of 100"),
    "page size not a number": ("get", "/api/bots/?page_size=lots", None, "anonymous", "whole number"),
    "page not a number": ("get", "/api/ladders/?page=first", None, "anonymous", "page must be a whole number"),
    "invalid status filter": ("get", "/api/matches/?status=won", None, "anonymous", "Select a valid choice"),
    "invalid date filter": ("get", "/api/matches/?created_after=yesterday", None, "anonymous", "valid date"),
    "invalid bot filter": ("get", "/api/matches/?bot=abc", None, "anonymous", "Enter a whole number"),
    "unknown game filter": ("get", "/api/matches/?game=chess", None, "anonymous", "unknown game 'chess'"),
    "unknown filter": ("get", "/api/matches/?staus=finished", None, "anonymous", "unknown filter 'staus'"),
    "frames: stop before start": ("get", "/api/matches/{finished}/frames/?start=5&stop=2", None, "anonymous",
                                  "stop must be greater than start"),
    "frames: too many": ("get", "/api/matches/{finished}/frames/?start=0&stop=1000", None, "anonymous",
                         "at most 100 frames"),
    "frames: no such seat": ("get", "/api/matches/{finished}/frames/?seat=7", None, "anonymous", "seats 0 to 1"),
    "frames: seat not a number": ("get", "/api/matches/{finished}/frames/?seat=x", None, "anonymous",
                                  "a seat number (0, 1, ...) or 'public', got 'x'"),
    "frames: unknown parameter": ("get", "/api/matches/{finished}/frames/?sete=1", None, "anonymous",
                                  "unknown field 'sete'"),
    "ladder feed: bad since": ("get", "/api/ladders/{ladder}/feed/?since=soon", None, "anonymous", "ISO 8601"),
}


def fill(value: Any, world: World) -> Any:
    ids = {"bot": world.bot.pk, "ladder": world.ladder.pk, "version": world.version.pk,
           "finished": world.finished.pk}
    if isinstance(value, str):
        for key, pk in ids.items():
            if value == f"{{{key}}}":
                return pk
            value = value.replace(f"{{{key}}}", str(pk))
        return value
    if isinstance(value, list):
        return [fill(v, world) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, world) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", list(CASES))
def test_it_answers_bad_input_with_a_clear_400(world: World, case: str) -> None:
    method, path, body, role, phrase = CASES[case]
    client = world.client(role)
    path = fill(path, world)
    if isinstance(body, bytes):
        response = getattr(client, method)(path, body, content_type="application/json")
    elif body is not None:
        response = getattr(client, method)(path, fill(body, world), format="json")
    else:
        response = getattr(client, method)(path)
    text = response.content.decode()
    assert response.status_code == 400, f"{case}: {response.status_code} {text[:300]}"
    assert phrase in text, f"{case}: {phrase!r} not in {text[:300]}"


def test_it_still_accepts_a_page_at_the_maximum(world: World) -> None:
    response = world.client("anonymous").get("/api/matches/?page_size=100")
    assert response.status_code == 200
    assert len(response.json()["results"]) == 3


def test_it_accepts_a_date_filter_with_any_offset(world: World) -> None:
    """Found by schemathesis: PostgreSQL refuses offsets of 16 hours or more, so filters convert to UTC first."""
    client = world.client("anonymous")
    assert client.get("/api/matches/", {"finished_after": "0640-04-09T04:40:06.8-16:29"}).status_code == 200
    assert client.get(f"/api/ladders/{world.ladder.pk}/feed/", {"since": "2020-01-01T00:00-16:29"}).status_code == 200


def test_it_refuses_a_date_out_of_range(world: World) -> None:
    response = world.client("anonymous").get("/api/matches/", {"created_after": "0001-01-01T00:00+10:00"})
    assert response.status_code == 400 and "out of range" in response.content.decode()
