"""The permission matrix: every endpoint and method, each role, the status code it gets (table-driven).

Roles: anonymous, owner (alice: the bot's owner), author (bob: another author), organiser (charlie: created the
ladder and the tournament), admin (root: staff).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from apiworld import ROLES, World
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db

ALL_200 = dict.fromkeys(ROLES, 200)


def codes(anonymous: int, owner: int, author: int, organiser: int, admin: int) -> dict[str, int]:
    return dict(zip(ROLES, (anonymous, owner, author, organiser, admin), strict=True))


def upload(w: World, role: str) -> dict[str, Any]:
    return {"name": f"new-{role}", "game": "evolution",
            "file": SimpleUploadedFile("bot.py", b"print('hi')\n")}


def a_test(w: World, role: str, new: Any) -> Any:
    """A running version test started by `role`: new against alice's public version (private when new is)."""
    from tournaments.version_tests import TestRequest, start_test

    return start_test(w.users[role], TestRequest(new=new.pk, base=w.version.pk))


# (method, path from the world, body from the world and role, expected status per role)
Row = tuple[str, Callable[[World], str], Callable[[World, str], Any] | None, dict[str, int]]
ROWS: dict[str, Row] = {
    "token login, wrong password": ("post", lambda w: "/api/auth/token/",
                                    lambda w, r: {"username": "alice", "password": "wrong"}, dict.fromkeys(ROLES, 400)),
    "games list": ("get", lambda w: "/api/games/", None, ALL_200),
    "game detail": ("get", lambda w: "/api/games/evolution/", None, ALL_200),
    "unknown game": ("get", lambda w: "/api/games/chess/", None, dict.fromkeys(ROLES, 404)),
    "bots list": ("get", lambda w: "/api/bots/", None, ALL_200),
    "public bot": ("get", lambda w: f"/api/bots/{w.bot.pk}/", None, ALL_200),
    "private bot": ("get", lambda w: f"/api/bots/{w.private_bot.pk}/", None, codes(404, 200, 404, 404, 200)),
    "bot patch": ("patch", lambda w: f"/api/bots/{w.bot.pk}/", lambda w, r: {"description": "new"},
                  codes(401, 200, 403, 403, 200)),
    "bot upload": ("post", lambda w: "/api/bots/upload/", upload, codes(401, 201, 201, 201, 201)),
    "versions list": ("get", lambda w: "/api/versions/", None, ALL_200),
    "version detail": ("get", lambda w: f"/api/versions/{w.version.pk}/", None, ALL_200),
    "private version": ("get", lambda w: f"/api/versions/{w.private_version.pk}/", None,
                        codes(404, 200, 404, 404, 200)),
    "ladders list": ("get", lambda w: "/api/ladders/", None, ALL_200),
    "ladder create": ("post", lambda w: "/api/ladders/",
                      lambda w, r: {"name": f"ladder-{r}", "game": "evolution", "players_per_match": 2},
                      codes(401, 403, 403, 201, 201)),
    "ladder detail": ("get", lambda w: f"/api/ladders/{w.ladder.pk}/", None, ALL_200),
    "ladder patch": ("patch", lambda w: f"/api/ladders/{w.ladder.pk}/", lambda w, r: {"move_ms": 500},
                     codes(401, 403, 403, 200, 200)),
    "ladder pause": ("post", lambda w: f"/api/ladders/{w.ladder.pk}/pause/", None, codes(401, 403, 403, 200, 200)),
    "ladder resume": ("post", lambda w: f"/api/ladders/{w.ladder.pk}/resume/", None,
                      codes(401, 403, 403, 200, 200)),
    "ladder standings": ("get", lambda w: f"/api/ladders/{w.ladder.pk}/standings/", None, ALL_200),
    "ladder feed": ("get", lambda w: f"/api/ladders/{w.ladder.pk}/feed/", None, ALL_200),
    # The world's ladder is not open: only staff enter (tests/tournaments/test_ladder_entries.py has the open one).
    "ladder entry, closed": ("post", lambda w: f"/api/ladders/{w.ladder.pk}/entries/",
                             lambda w, r: {"bot_version": w.version2.pk}, codes(401, 400, 400, 400, 201)),
    "ladder withdrawal, closed": ("delete", lambda w: f"/api/ladders/{w.ladder.pk}/entries/{w.version2.pk}/", None,
                                  codes(401, 400, 400, 400, 400)),
    "tournaments list": ("get", lambda w: "/api/tournaments/", None, ALL_200),
    "tournament create": ("post", lambda w: "/api/tournaments/",
                          lambda w, r: {"name": f"cup-{r}", "game": "evolution", "players_per_table": 2,
                                        "entries": [w.version.pk, w.other_version.pk]},
                          codes(401, 403, 403, 201, 201)),
    "tournament detail": ("get", lambda w: f"/api/tournaments/{w.tournament.pk}/", None, ALL_200),
    "tournament patch": ("patch", lambda w: f"/api/tournaments/{w.tournament.pk}/", lambda w, r: {"seed": 9},
                         codes(401, 403, 403, 200, 200)),
    "tournament start": ("post", lambda w: f"/api/tournaments/{w.tournament.pk}/start/", None,
                         codes(401, 403, 403, 200, 200)),
    "tournament cancel": ("post", lambda w: f"/api/tournaments/{w.tournament.pk}/cancel/", None,
                          codes(401, 403, 403, 200, 200)),
    "tournament requeue failed": ("post", lambda w: f"/api/tournaments/{w.tournament.pk}/requeue-failed/", None,
                                  codes(401, 403, 403, 200, 200)),
    "tournament standings": ("get", lambda w: f"/api/tournaments/{w.tournament.pk}/standings/", None, ALL_200),
    "matches list": ("get", lambda w: "/api/matches/", None, ALL_200),
    "match detail": ("get", lambda w: f"/api/matches/{w.finished.pk}/", None, ALL_200),
    "match request, a seat of each": ("post", lambda w: "/api/matches/",
                                      lambda w, r: {"ladder": w.ladder.pk,
                                                    "seats": [w.version.pk, w.other_version.pk]},
                                      codes(401, 201, 201, 201, 201)),
    "match request, alice's seats": ("post", lambda w: "/api/matches/",
                                     lambda w, r: {"ladder": w.ladder.pk, "seats": [w.version.pk, w.version2.pk]},
                                     codes(401, 201, 403, 201, 201)),
    "rated match request": ("post", lambda w: "/api/matches/",
                            lambda w, r: {"ladder": w.ladder.pk, "seats": [w.version.pk, w.other_version.pk],
                                          "rated": True},
                            codes(401, 403, 403, 201, 201)),
    "replay": ("get", lambda w: f"/api/matches/{w.finished.pk}/replay/", None, ALL_200),
    "replay of a running match": ("get", lambda w: f"/api/matches/{w.running.pk}/replay/", None,
                                  dict.fromkeys(ROLES, 404)),
    "action log": ("get", lambda w: f"/api/matches/{w.finished.pk}/replay/actions/", None, ALL_200),
    "omniscient frames, finished": ("get", lambda w: f"/api/matches/{w.finished.pk}/frames/", None, ALL_200),
    "seat frames, finished": ("get", lambda w: f"/api/matches/{w.finished.pk}/frames/?seat=1", None, ALL_200),
    "omniscient frames, running": ("get", lambda w: f"/api/matches/{w.running.pk}/frames/", None,
                                   codes(401, 403, 403, 403, 200)),
    "owner's seat frames, running": ("get", lambda w: f"/api/matches/{w.running.pk}/frames/?seat=0", None,
                                     codes(401, 200, 403, 403, 200)),
    "author's seat frames, running": ("get", lambda w: f"/api/matches/{w.running.pk}/frames/?seat=1", None,
                                      codes(401, 403, 200, 403, 200)),
    "omniscient frames, queued": ("get", lambda w: f"/api/matches/{w.queued.pk}/frames/", None,
                                  codes(401, 403, 403, 403, 200)),
    "match feed, running": ("get", lambda w: f"/api/matches/{w.running.pk}/feed/", None, ALL_200),
    "match feed, finished": ("get", lambda w: f"/api/matches/{w.finished.pk}/feed/", None, ALL_200),
    "match branches": ("get", lambda w: f"/api/matches/{w.finished.pk}/branches/", None, ALL_200),
    "branch a finished match": ("post", lambda w: f"/api/matches/{w.finished.pk}/branches/",
                                lambda w, r: {"step": 2}, codes(401, 201, 201, 201, 201)),
    "branch a running match": ("post", lambda w: f"/api/matches/{w.running.pk}/branches/",
                               lambda w, r: {"step": 2}, codes(401, 400, 400, 400, 400)),
    "branch a queued match": ("post", lambda w: f"/api/matches/{w.queued.pk}/branches/",
                              lambda w, r: {"step": 0}, codes(401, 400, 400, 400, 400)),
    "match analyses": ("get", lambda w: f"/api/matches/{w.finished.pk}/analysis/", None, ALL_200),
    "match analyses, running": ("get", lambda w: f"/api/matches/{w.running.pk}/analysis/", None, ALL_200),
    "analyse a finished match": ("post", lambda w: f"/api/matches/{w.finished.pk}/analysis/",
                                 lambda w, r: {"seat": 1, "games": 1}, codes(401, 202, 202, 202, 202)),
    "analyse a running match": ("post", lambda w: f"/api/matches/{w.running.pk}/analysis/",
                                lambda w, r: {"seat": 1}, codes(401, 400, 400, 400, 400)),
    "version tests list": ("get", lambda w: "/api/tests/", None, ALL_200),
    "version test start": ("post", lambda w: "/api/tests/", lambda w, r: {"new": w.version2.pk, "base": w.version.pk},
                           codes(401, 201, 201, 201, 201)),
    "public version test": ("get", lambda w: f"/api/tests/{a_test(w, 'author', w.other_version).pk}/", None, ALL_200),
    "private version test": ("get", lambda w: f"/api/tests/{a_test(w, 'owner', w.private_version).pk}/", None,
                             codes(404, 200, 404, 404, 200)),
    "version test cancel": ("post", lambda w: f"/api/tests/{a_test(w, 'author', w.other_version).pk}/cancel/", None,
                            codes(401, 403, 200, 403, 200)),
    "api root": ("get", lambda w: "/api/", None, ALL_200),
    "schema": ("get", lambda w: "/api/schema/", None, ALL_200),
    "docs": ("get", lambda w: "/api/docs/", None, ALL_200),
    "no such endpoint": ("get", lambda w: "/api/nowhere/1.5/", None, dict.fromkeys(ROLES, 404)),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", list(ROWS))
def test_it_gives_each_role_the_right_status(world: World, row: str, role: str) -> None:
    method, path, body, expected = ROWS[row]
    client = world.client(role)
    data = body(world, role) if body else None
    fmt = "multipart" if row == "bot upload" else "json"
    response = getattr(client, method)(path(world), data, format=fmt) if data is not None else \
        getattr(client, method)(path(world))
    content = b"" if getattr(response, "streaming", False) else response.content[:300]
    assert response.status_code == expected[role], f"{row} as {role}: {response.status_code} {content!r}"


def test_it_covers_every_api_route(world: World) -> None:
    """A new route must join the matrix: every route under /api/ is hit by some row."""
    from apiworld import api_routes
    from django.urls import resolve

    hit = set()
    for _, path, _, _ in ROWS.values():
        match = resolve(path(world).split("?")[0])
        hit.add(f"{match.namespace}:{match.url_name}" if match.namespace else match.url_name)
    missing = set(api_routes()) - hit
    assert not missing, f"routes without a row in the permission matrix: {sorted(missing)}"
