"""Nothing hidden leaks: every GET route under /api/, with real objects, as each role, searched for secrets.

Planted: a marker in each bot's source (searched as text and as the base64 of the source), in each seat's log and
in a validation log; a running evolution match whose seats' hands are known; a running marine match whose draw pile
and terrain stacks (hidden from every seat alike) are known; the settings' secrets and every user's token. Each must
appear only in the responses of those allowed to see it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from apiworld import LIVE_STEPS, ROLES, World, api_routes, base64_of, body_text, live_hands, log_marker, spellings
from django.conf import settings
from django.urls import reverse

from engine import load_game
from replays.progress import save_progress
from tournaments.models import Match, Seat

pytestmark = pytest.mark.django_db
MARINE_SEED = 21


@pytest.fixture
def world(world: World) -> World:
    """The API world plus a running marine match, seated by alice's and bob's versions, a few actions in."""
    game = load_game("marine")
    options = game.validate_options({})
    match = Match.objects.create(ladder=world.ladder, game="marine", num_players=2, seed=MARINE_SEED,
                                 options=options, status=Match.Status.RUNNING)
    Seat.objects.bulk_create([Seat(match=match, number=n, bot_version=v)
                              for n, v in enumerate((world.version, world.other_version))])
    state, actions, hidden = game.new_state(2, MARINE_SEED, options), [], []
    for _ in range(LIVE_STEPS):
        omniscient = state.view(None)
        hidden += [omniscient["deck"], omniscient["tile_stacks_full"]]
        decision = state.decision()
        assert decision is not None
        actions.append({"seat": decision.seat, "choice": 0, "ms": 3})
        state.choose(0)
    save_progress(match.pk, 1, actions)
    world.extra.update(marine_running=match, marine_hidden=hidden)
    return world

RESOURCE_OBJECTS = {
    "bots": ("bot", "private_bot", "other_bot"),
    "versions": ("version", "version2", "private_version", "other_version"),
    "ladders": ("ladder",),
    "tournaments": ("tournament",),
    "matches": ("finished", "running", "queued", "marine_running"),
}
QUERIES = {"api:match-frames": ["", "?seat=0", "?seat=1", "?start=1&stop=4"], "api:match-list": ["", "?page_size=100"],
           "api:bot-list": ["", "?page_size=100"], "api:version-list": ["", "?page_size=100"]}


def get_urls(world: World) -> list[str]:
    """Every GET-able URL under /api/, once per real object of its resource."""
    urls = []
    for name, pattern in sorted(api_routes().items()):
        if name == "api:not-found":
            continue
        resource = pattern.removeprefix("api/").lstrip("^").split("/")[0]
        if "<str:name>" in pattern:
            paths = [reverse(name, kwargs={"name": "evolution"})]
        elif "pk" in pattern:
            paths = [reverse(name, kwargs={"pk": obj(world, attr).pk}) for attr in RESOURCE_OBJECTS[resource]]
        else:
            paths = [reverse(name)]
        urls += [path + query for path in paths for query in QUERIES.get(name, [""])]
    return urls


def obj(world: World, attr: str) -> Any:
    return world.extra[attr] if attr in world.extra else getattr(world, attr)


def responses(world: World, role: str) -> dict[str, str]:
    client = world.client(role)
    bodies = {}
    for url in get_urls(world):
        response = client.get(url)
        assert response.status_code < 500, f"GET {url} as {role}: {response.status_code}"
        bodies[url] = normalised(body_text(response))
    return bodies


def normalised(text: str) -> str:
    """The body, plus its JSON re-spelled both ways, so a search does not depend on the renderer's spacing."""
    parts = [text]
    for chunk in text.splitlines() or [text]:
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        parts += spellings(value)
    return "\n".join(parts)


def secrets_of(world: World) -> dict[str, tuple[set[str], list[str]]]:
    """What must stay hidden: name → (roles allowed to see it, its spellings)."""
    owners_only, authors_only = {"owner", "admin"}, {"author", "admin"}
    hidden: dict[str, tuple[set[str], list[str]]] = {}
    for attr, allowed in (("version", owners_only), ("version2", owners_only), ("private_version", owners_only),
                          ("other_version", authors_only)):
        source = bytes(getattr(world, attr).source)
        hidden[f"source of {attr}"] = (allowed, [source.decode().splitlines()[0][2:], base64_of(source)])
    hidden["alice's seat log"] = (owners_only, [log_marker("alice")])
    hidden["bob's seat log"] = (authors_only, [log_marker("bob")])
    hidden["alice's validation log"] = (owners_only, ["alice-validation-log"])
    for seat, allowed in ((0, owners_only), (1, authors_only)):
        hidden[f"seat {seat}'s live hands"] = (allowed, [s for hand in live_hands(seat) for s in spellings(hand)])
    deck_and_stacks = [s for value in world.extra["marine_hidden"] for s in spellings(value)]
    hidden["the running marine match's draw pile and terrain stacks"] = ({"admin"}, deck_and_stacks)
    hidden["SECRET_KEY"] = (set(), [settings.SECRET_KEY])
    password = settings.DATABASES["default"].get("PASSWORD")
    if password:
        hidden["database password"] = (set(), [password])
    for role, token in world.tokens.items():
        hidden[f"{role}'s token"] = (set(), [token])
    return hidden


@pytest.mark.parametrize("role", ROLES)
def test_it_shows_no_role_what_it_may_not_see(world: World, role: str) -> None:
    bodies = responses(world, role)
    leaks = [f"{what} in GET {url}"
             for what, (allowed, spelled) in secrets_of(world).items() if role not in allowed
             for url, body in bodies.items() if any(s in body for s in spelled)]
    assert not leaks, f"as {role}: " + "; ".join(leaks[:10])


@pytest.mark.parametrize("role", ROLES)
def test_it_shows_no_omniscient_frame_of_an_unfinished_match(world: World, role: str) -> None:
    client = world.client(role)
    for match in (world.running, world.queued, world.extra["marine_running"]):
        response = client.get(f"/api/matches/{match.pk}/frames/")
        frames = response.json().get("frames", []) if response.status_code == 200 else []
        omniscient = [frame["step"] for frame in frames if frame["view"].get("you") is None]
        assert (role == "admin") == bool(omniscient), f"{role}: omniscient frames {omniscient} of {match}"


def test_it_plants_what_it_searches_for(world: World) -> None:
    """The search is not vacuous: the allowed roles do find each planted secret somewhere."""
    for role in ("owner", "author"):
        bodies = "\n".join(responses(world, role).values())
        for what, (allowed, spelled) in secrets_of(world).items():
            if role in allowed:
                assert any(s in bodies for s in spelled), f"{role} never sees {what}"


def test_admins_see_the_hidden_state_of_a_running_match(world: World) -> None:
    """The marine search is not vacuous either: the omniscient frames admins get carry the planted draw pile."""
    bodies = "\n".join(responses(world, "admin").values())
    _, spelled = secrets_of(world)["the running marine match's draw pile and terrain stacks"]
    assert any(s in bodies for s in spelled)
