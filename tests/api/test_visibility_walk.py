"""The visibility rule as a property (tournaments/visibility.py): every route of the URLconf (the API, the pages, the
replay viewer's JSON, the feeds, the admin and the accounts pages), enumerated from the URLconf so a new route is
walked without being listed, GET as each role, with real objects, searched for what that role may not see.

The world (tests/api/apiworld.py) plus: alice's private bot seated (by alice) in a running and a finished match; a
running and a queued match, a running tournament and a finished game whose set is still pending (and staff's branch of
it), each with a seed that must stay hidden; a running marine match whose draw pile and terrain stacks are hidden
from every seat alike.
Planted: a marker in each bot's source (as text and as base64), in each seat's log and a validation log; the private
bot's name, description and hash; the seats' live hands; the settings' secrets and every user's token. Roles: anonymous,
owner (alice), author (bob, the other seats' owner), organiser (charlie, an outsider who runs the competitions) and
admin (staff). Staff may see everything, so the admin's own pages are walked for the others only (they must be
turned away); a last test checks that staff do find each planted secret, so the search is not vacuous.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from apiworld import (
    LIVE_STEPS,
    ROLES,
    World,
    all_routes,
    base64_of,
    body_text,
    finished_document,
    live_actions_so_far,
    live_hands,
    log_marker,
    make_match,
    spellings,
)
from django.conf import settings
from django.urls import reverse

from engine import load_game
from replays.models import Replay
from replays.progress import save_progress
from tournaments.models import Bot, Ladder, Match, Seat, Tournament, VersionTest
from tournaments.version_tests import TestRequest, start_test

pytestmark = pytest.mark.django_db
MARINE_SEED = 21
# Seeds that must stay hidden from all but staff: long enough never to appear by chance.
PRIVATE_RUNNING_SEED, QUEUED_SEED, TOURNAMENT_SEED, SET_SEED = (8_164_000_000_000_017, 8_164_000_000_000_029,
                                                                8_164_000_000_000_031, 8_164_000_000_000_043)
PRIVATE_NAME, PRIVATE_DESCRIPTION = "stealth", "private-description-3e9d"
RUNNING_TEST_SEED = 8_164_000_000_000_053  # a running version test's secret: nobody sees it until the test ends


@pytest.fixture(scope="module")
def build_world(build_world: Callable[[], World]) -> Callable[[], World]:
    """The API tests' world plus what this walk plants (built once for the module: tests/api/conftest.py)."""

    def build() -> World:
        world = build_world()
        add_marine_running(world)
        add_private_matches(world)
        add_hidden_seeds(world)
        add_version_tests(world)
        return world

    return build


def add_marine_running(world: World) -> None:
    """A running marine match, seated by alice's and bob's versions, a few actions in."""
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


def add_private_matches(world: World) -> None:
    """Alice's private version in a running match and in a finished one (its replay header as the runner writes)."""
    Bot.objects.filter(pk=world.private_bot.pk).update(description=PRIVATE_DESCRIPTION)
    seats = (world.private_version, world.other_version)
    running = make_match(ladder=world.ladder, seed=PRIVATE_RUNNING_SEED, versions=seats, status=Match.Status.RUNNING)
    save_progress(running.pk, 1, live_actions_so_far(PRIVATE_RUNNING_SEED))
    finished = make_match(ladder=world.ladder, seed=13, versions=seats, status=Match.Status.FINISHED)
    document = finished_document(finished.pk, *(v.pk for v in seats), seed=13)
    for header, version in zip(document["header"]["seats"], seats, strict=True):
        header.update(bot=version.bot.name, owner=str(version.bot.owner_id), sha256=version.sha256, version=1)
    save_result(finished, document)
    Seat.objects.filter(match=finished, number=0).update(log=log_marker("alice-private"))
    world.extra.update(private_running=running, private_finished=finished)


def add_hidden_seeds(world: World) -> None:
    """A queued match, a running tournament, and a finished game whose set's other game is still queued."""
    Match.objects.filter(pk=world.queued.pk).update(seed=QUEUED_SEED)
    Tournament.objects.filter(pk=world.tournament.pk).update(seed=TOURNAMENT_SEED, state=Tournament.State.RUNNING)
    versions = (world.version, world.other_version)
    played = make_match(tournament=world.tournament, round=2, seed=SET_SEED, versions=versions,
                        status=Match.Status.FINISHED)
    save_result(played, finished_document(played.pk, *(v.pk for v in versions), seed=SET_SEED))
    waiting = make_match(tournament=world.tournament, round=2, seed=SET_SEED, versions=versions[::-1],
                         status=Match.Status.QUEUED)
    world.extra.update(set_played=played, set_waiting=waiting, set_branch=staff_branch(played))


def add_version_tests(world: World) -> None:
    """A running test of alice's private version (docs/version-tests.md): private, and its secret seed hidden from
    all while it runs; and bob's public test of his version against alice's."""
    private = start_test(world.users["owner"], TestRequest(new=world.private_version.pk, base=world.version.pk))
    VersionTest.objects.filter(pk=private.pk).update(seed=RUNNING_TEST_SEED)
    public = start_test(world.users["author"], TestRequest(new=world.other_version.pk, base=world.version.pk))
    world.extra.update(private_test=private, public_test=public)


def staff_branch(parent: Match) -> Match:
    """A finished branch that staff made of a game whose set is pending (docs/branches.md): it keeps the parent's
    seed, so it must stay as closed as the parent."""
    document = Replay.objects.get(match=parent).document()
    branch = Match.objects.create(ladder=Ladder.objects.create(name="branches evolution", game="evolution"),
                                  game="evolution", num_players=2, seed=parent.seed, options=parent.options,
                                  status=Match.Status.FINISHED, rated=False, parent=parent, branch_step=3,
                                  branch_prefix=document["actions"][:3])
    Seat.objects.bulk_create([Seat(match=branch, number=s.number, bot_version=s.bot_version)
                              for s in parent.seats.all()])
    document["header"] = dict(document["header"], match=branch.pk,
                              branch={"parent": parent.pk, "step": 3, "force": None, "resample": None})
    save_result(branch, document)
    return branch


def save_result(match: Match, document: dict[str, Any]) -> None:
    Replay.from_document(match, document).save()
    outcome = document["footer"]["outcome"]
    for seat in match.seats.all():
        Seat.objects.filter(pk=seat.pk).update(score=outcome["scores"][seat.number], rank=outcome["ranks"][seat.number])


# --- the walk -------------------------------------------------------------------------------------------------------

MATCHES = ("finished", "running", "queued", "marine_running", "private_running", "private_finished", "set_played",
           "set_waiting", "set_branch")
# The objects to put in each route's <pk>, by the route's first path segment (after api/).
RESOURCE_OBJECTS = {
    "bots": ("bot", "private_bot", "other_bot"),
    "versions": ("version", "version2", "private_version", "other_version"),
    "ladders": ("ladder",),
    "tournaments": ("tournament",),
    "matches": MATCHES,
    "replays": MATCHES,
    "tests": ("private_test", "public_test"),
}
RESOURCE_OF_ROUTE = {"replays:head_to_head": "bots"}  # a route whose <pk> is not its first segment's resource
# Other parameters, by name: those of the admin and the accounts pages take any value (they are turned away or
# answer the same for any).
PLAIN_PARAMETERS = {"name": "evolution", "object_id": "1", "id": "1", "app_label": "tournaments",
                    "content_type_id": "1", "uidb64": "MQ", "token": "set-password", "seat": "0",
                    "version": "1", "game": "evolution"}
QUERIES = {"api:match-frames": ["", "?seat=0", "?seat=1", "?seat=public", "?start=1&stop=4"],
           "api:match-list": ["", "?page_size=100"], "api:bot-list": ["", "?page_size=100"],
           "api:version-list": ["", "?page_size=100"], "api:tournament-list": ["", "?page_size=100"],
           "api:version-test-list": ["", "?page_size=100", "?author=alice"], "pages:tests": ["", "?author=alice"],
           "replays:scores": ["?view=0", "?view=1", "?view=public", "?view=omniscient"],
           "replays:log": ["", "?since=1"]}
SKIPPED = {"api:not-found"}  # the catch-all: every other path under /api/ is its own 404


def get_urls(world: World, role: str) -> list[str]:
    """Every GET-able URL of the URLconf, once per real object of its resource (the admin's only for non-staff)."""
    urls = []
    for name, pattern in sorted(all_routes().items()):
        if name in SKIPPED or (role == "admin" and name.startswith("admin:")):
            continue
        paths = [reverse(name, kwargs=kwargs) for kwargs in route_kwargs(world, name, pattern)]
        urls += [path + query for path in paths for query in QUERIES.get(name, [""])]
    return urls


def route_kwargs(world: World, name: str, pattern: str) -> list[dict[str, Any]]:
    """Every filling of the route's parameters: each object for a pk, the plain value for the others."""
    names = sorted(set(re.findall(r"<(?:\w+:)?(\w+)>", pattern)))  # <int:pk> and (?P<pk>...) alike
    plain = {key: PLAIN_PARAMETERS[key] for key in names if key != "pk" and key in PLAIN_PARAMETERS}
    unknown = set(names) - set(plain) - {"pk"}
    assert not unknown, f"route {name} ({pattern}) has parameters {unknown}: add values to PLAIN_PARAMETERS"
    if "pk" not in names:
        return [plain]
    resource = RESOURCE_OF_ROUTE.get(name) or pattern.removeprefix("api/").split("/")[0]
    assert resource in RESOURCE_OBJECTS, f"route {name} ({pattern}): add its objects to RESOURCE_OBJECTS"
    return [dict(plain, pk=obj(world, attr).pk) for attr in RESOURCE_OBJECTS[resource]]


def obj(world: World, attr: str) -> Any:
    return world.extra[attr] if attr in world.extra else getattr(world, attr)


@pytest.fixture(scope="module")
def walks() -> dict[str, dict[str, str]]:
    """Each role's walk, kept for the module: the world is the module's and a walk only reads, so a role's two tests
    (what it may not see, what it may) search one walk."""
    return {}


def walk(world: World, role: str, walks: dict[str, dict[str, str]]) -> dict[str, str]:
    if role not in walks:
        walks[role] = responses(world, role)
    return walks[role]


def responses(world: World, role: str) -> dict[str, str]:
    client = world.client(role)
    bodies = {}
    for url in get_urls(world, role):
        response = client.get(url)
        assert response.status_code < 500, f"GET {url} as {role}: {response.status_code}"
        if url.startswith("/admin/") and not url.startswith("/admin/login/"):
            assert response.status_code != 200, f"GET {url} as {role}: the admin let a non-staff user in"
        bodies[url] = normalised(text_of(response))
    return bodies


def text_of(response: Any) -> str:
    """The body as text; a replay file (gzip) unpacked."""
    if response.get("Content-Type") == "application/gzip":
        return gzip.decompress(response.content).decode()
    return body_text(response)


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
    owners_only, authors_only, staff_only = {"owner", "admin"}, {"author", "admin"}, {"admin"}
    hidden: dict[str, tuple[set[str], list[str]]] = {}
    for attr, allowed in (("version", owners_only), ("version2", owners_only), ("private_version", owners_only),
                          ("other_version", authors_only)):
        source = bytes(getattr(world, attr).source)
        hidden[f"source of {attr}"] = (allowed, [source.decode().splitlines()[0][2:], base64_of(source)])
    hidden["alice's seat log"] = (owners_only, [log_marker("alice")])
    hidden["alice's private seat log"] = (owners_only, [log_marker("alice-private")])
    hidden["bob's seat log"] = (authors_only, [log_marker("bob")])
    hidden["alice's validation log"] = (owners_only, ["alice-validation-log"])
    hidden["the private bot's name"] = (owners_only, [PRIVATE_NAME])
    hidden["the private bot's description"] = (owners_only, [PRIVATE_DESCRIPTION])
    hidden["the private version's hash"] = (owners_only, [world.private_version.sha256])
    for seat, allowed in ((0, owners_only), (1, authors_only)):
        hidden[f"seat {seat}'s live hands"] = (allowed, [s for hand in live_hands(seat) for s in spellings(hand)])
        private_hands = live_hands(seat, PRIVATE_RUNNING_SEED)
        hidden[f"seat {seat}'s live hands beside a private bot"] = (allowed, [s for hand in private_hands
                                                                               for s in spellings(hand)])
    deck_and_stacks = [s for value in world.extra["marine_hidden"] for s in spellings(value)]
    hidden["the running marine match's draw pile and terrain stacks"] = (staff_only, deck_and_stacks)
    for what, seed in (("a running match's seed", PRIVATE_RUNNING_SEED), ("a queued match's seed", QUEUED_SEED),
                       ("a running tournament's seed", TOURNAMENT_SEED), ("a pending set's seed", SET_SEED)):
        hidden[what] = (staff_only, [str(seed)])
    hidden["a running version test's seed"] = (set(), [str(RUNNING_TEST_SEED)])
    hidden["SECRET_KEY"] = (set(), [settings.SECRET_KEY])
    password = settings.DATABASES["default"].get("PASSWORD")
    if password:
        hidden["database password"] = (set(), [password])
    for role, token in world.tokens.items():
        hidden[f"{role}'s token"] = (set(), [token])
    return hidden


@pytest.mark.parametrize("role", ROLES)
def test_it_shows_no_role_what_it_may_not_see(world: World, walks: dict[str, dict[str, str]], role: str) -> None:
    bodies = walk(world, role, walks)
    leaks = [f"{what} in GET {url}"
             for what, (allowed, spelled) in secrets_of(world).items() if role not in allowed
             for url, body in bodies.items() if any(s in body for s in spelled)]
    assert not leaks, f"as {role}: " + "; ".join(leaks[:10])


def test_it_walks_every_page_and_endpoint(world: World) -> None:
    """The walk covers the API, the pages, the viewer's JSON, the feeds and the admin."""
    walked = {url.split("?")[0].split("/")[1] for url in get_urls(world, "anonymous")}
    assert {"api", "bots", "ladders", "matches", "replays", "tournaments", "versions", "admin", "accounts"} <= walked


@pytest.mark.parametrize("role", ROLES)
def test_it_shows_no_omniscient_frame_of_a_match_that_is_not_over(world: World, role: str) -> None:
    client = world.client(role)
    for attr in ("running", "queued", "marine_running", "private_running", "set_played", "set_branch"):
        response = client.get(f"/api/matches/{obj(world, attr).pk}/frames/")
        frames = response.json().get("frames", []) if response.status_code == 200 else []
        omniscient = [frame["step"] for frame in frames if frame["view"].get("you") is None]
        assert (role == "admin") == bool(omniscient), f"{role}: omniscient frames {omniscient} of {attr}"


@pytest.mark.parametrize("role", ["owner", "author", "admin"])
def test_each_role_finds_what_it_may_see(world: World, walks: dict[str, dict[str, str]], role: str) -> None:
    """The search is not vacuous: the roles allowed to see a planted secret do find it somewhere; staff find all."""
    bodies = "\n".join(walk(world, role, walks).values())
    missing = [what for what, (allowed, spelled) in secrets_of(world).items()
               if role in allowed and not any(s in bodies for s in spelled)]
    assert not missing, f"{role} never sees {missing}"
