"""POST and GET /api/matches/{id}/analysis/ (docs/analysis.md): the attacks first (an analysis plays every option
out with every seat's hidden cards as they were, so it is as private as the match's secrets), then one clear 400 per
bad input, then the cache.

Personas (tests/api/apiworld.py): alice (owner) keeps `hungry` and the private `stealth`; bob (author) owns `lazy`;
root is staff. world.finished is hungry against lazy, finished and over.
"""

from __future__ import annotations

from typing import Any

import pytest
from apiworld import FINISHED_SEED, World, finished_document, make_match

from replays.models import Analysis, Replay
from tournaments.builtins import system_user
from tournaments.models import Ladder, Match
from tournaments.system_ladders import VALIDATION_LADDER

pytestmark = pytest.mark.django_db


def url(match: Match) -> str:
    return f"/api/matches/{match.pk}/analysis/"


def ask(world: World, role: str, match: Match | None = None, **body: Any) -> Any:
    return world.client(role).post(url(match or world.finished), body or {"games": 1}, format="json")


def read(world: World, role: str, match: Match | None = None) -> Any:
    return world.client(role).get(url(match or world.finished))


def a_set_still_playing(world: World) -> Match:
    """The other game of world.finished's set: queued, so world.finished is not over."""
    return make_match(ladder=world.ladder, seed=FINISHED_SEED, versions=(world.other_version, world.version),
                      status=Match.Status.QUEUED)


# --- the attacks ----------------------------------------------------------------------------------------------------


def test_nobody_but_staff_analyses_or_reads_the_analysis_of_a_match_whose_set_is_still_playing(world: World) -> None:
    """Each option's playouts start from every seat's real hand: a seat owner would learn the other's cards, which
    the next game of the set deals again."""
    a_set_still_playing(world)
    assert ask(world, "admin").status_code == 202
    for role in ("owner", "author", "organiser"):
        answer = ask(world, role)
        assert answer.status_code == 403, (role, answer.content)
        assert "only staff may see it now" in answer.json()["detail"]
        seen = read(world, role)
        assert seen.status_code == 403, (role, seen.content)
        assert "decisions" not in seen.content.decode()
    assert read(world, "anonymous").status_code == 403
    assert Analysis.objects.filter(match=world.finished).count() == 1
    assert [row["seat"] for row in read(world, "admin").json()["analyses"]] == [1]


def test_a_private_validation_match_is_analysed_by_staff_only(world: World) -> None:
    ladder = Ladder.objects.create(name=f"{VALIDATION_LADDER}evolution", game="evolution", created_by=system_user(),
                                   players_per_match=2, paused=True)
    smoke = make_match(ladder=ladder, seed=21, versions=(world.private_version, world.other_version),
                       status=Match.Status.FINISHED)
    Replay.from_document(smoke, finished_document(smoke.pk, world.private_version.pk, world.other_version.pk,
                                                  seed=21)).save()
    for role in ("owner", "author", "anonymous"):
        assert ask(world, role, match=smoke).status_code in (401, 403), role
        assert read(world, role, match=smoke).status_code == 403, role
    assert ask(world, "admin", match=smoke).status_code == 202


def test_a_running_match_cannot_be_analysed_even_by_staff(world: World) -> None:
    for role in ("owner", "admin"):
        answer = ask(world, role, match=world.running)
        assert answer.status_code == 400, answer.content
        assert answer.json() == {"match": [f"match {world.running.pk} is running: only a finished match can be "
                                           "analysed"]}
    assert read(world, "owner", match=world.running).json() == {"analyses": []}
    assert not Analysis.objects.exists()


def test_anonymous_visitors_cannot_ask_for_an_analysis(world: World) -> None:
    assert ask(world, "anonymous").status_code in (401, 403)
    assert not Analysis.objects.exists()


# --- bad input ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"seat": 0}, "seat", "seat 0 is not a seat of match"),
    ({"seat": 3}, "seat", "its seats are 1 to 2 (counted from 1"),
    ({"bot": "deep-blue"}, "bot", "'deep-blue' is not a built-in bot"),
    ({"games": 0}, "games", "games must be 1 to 50, got 0"),
    ({"games": 51}, "games", "games must be 1 to 50, got 51"),
    ({"games": "many"}, "games", "valid integer"),
    ({"depth": 3}, "depth", ""),
])
def test_each_bad_input_gets_one_clear_400(world: World, body: dict[str, Any], field: str, words: str) -> None:
    answer = ask(world, "author", **body)
    assert answer.status_code == 400, answer.content
    assert list(answer.json()) == [field]
    assert words in answer.json()[field][0]
    assert not Analysis.objects.exists()


# --- the cache ------------------------------------------------------------------------------------------------------


def test_an_over_match_is_analysed_for_anyone_signed_in_once_per_seat_bot_and_games(world: World) -> None:
    first = ask(world, "author", seat=2, games=1)
    assert first.status_code == 202, first.content
    row = first.json()
    assert (row["seat"], row["bot"], row["games"], row["status"], row["done"]) == (2, "greedy", 1, "queued", 0)
    assert row["total"] > 0
    assert ask(world, "owner", seat=2, games=1).json()["id"] == row["id"]
    assert ask(world, "owner", seat=2, games=2).json()["id"] != row["id"]
    assert [r["id"] for r in read(world, "anonymous").json()["analyses"]][1] == row["id"]
