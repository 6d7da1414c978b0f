"""A small world for the API tests: personas in their roles, bots with marked sources, a ladder, a tournament,
a finished match with its replay, a running match with live progress, and a queued one.

Roles: anonymous; owner (alice, owns the bot "hungry"); author (bob, owns "lazy"); organiser (charlie, in the
organisers group, created the ladder and the tournament); admin (root, staff).
"""

from __future__ import annotations

import base64
import functools
import json
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import load_game
from replays import format as replay_format
from replays.models import Replay
from replays.progress import save_progress
from replays.verify import verify_document
from tournaments.models import Bot, BotVersion, Entry, Ladder, Match, Rating, Seat, Tournament

ROLES = ("anonymous", "owner", "author", "organiser", "admin")
GAME = "evolution"
OPTIONS = {"deck": "short"}
LIVE_STEPS = 3  # actions the running match has played so far


def marked_source(who: str) -> bytes:
    return f"# {who}-SOURCE-MARKER-5b1e\nfrom engine.sdk import run\nrun(lambda view, decision: 0)\n".encode()


def log_marker(who: str) -> str:
    return f"{who}-SEAT-LOG-MARKER-c42d"


@dataclass
class World:
    users: dict[str, Any]
    tokens: dict[str, str]
    bot: Bot  # alice's public bot
    private_bot: Bot  # alice's private bot
    other_bot: Bot  # bob's
    version: BotVersion  # alice's hungry v1
    version2: BotVersion  # alice's hungry v2
    other_version: BotVersion  # bob's lazy v1
    private_version: BotVersion
    ladder: Ladder
    tournament: Tournament
    finished: Match
    running: Match
    queued: Match
    extra: dict[str, Any] = field(default_factory=dict)

    def client(self, role: str) -> APIClient:
        client = APIClient()
        if role != "anonymous":
            client.credentials(HTTP_AUTHORIZATION=f"Token {self.tokens[role]}")
        return client


def make_world(django_user_model: Any) -> World:
    users = {
        "owner": django_user_model.objects.create_user("alice", "alice@example.org"),
        "author": django_user_model.objects.create_user("bob", "bob@example.org"),
        "organiser": django_user_model.objects.create_user("charlie", "charlie@example.org"),
        "admin": django_user_model.objects.create_superuser("root", "root@example.org", None),
    }
    users["organiser"].groups.add(Group.objects.get_or_create(name="organisers")[0])
    tokens = {role: Token.objects.create(user=user).key for role, user in users.items()}
    alice, bob, charlie = users["owner"], users["author"], users["organiser"]
    bot = Bot.objects.create(owner=alice, name="hungry", game=GAME, description="feeds first")
    private_bot = Bot.objects.create(owner=alice, name="stealth", game=GAME, visibility=Bot.Visibility.PRIVATE)
    other_bot = Bot.objects.create(owner=bob, name="lazy", game=GAME)
    active = BotVersion.Status.ACTIVE
    version = BotVersion.objects.create(bot=bot, number=1, source=marked_source("alice"), filename="hungry.py",
                                        status=active, validation_log="alice-validation-log")
    version2 = BotVersion.objects.create(bot=bot, number=2, source=marked_source("alice") + b"# v2\n",
                                         filename="hungry.py", status=active)
    other_version = BotVersion.objects.create(bot=other_bot, number=1, source=marked_source("bob"),
                                              filename="lazy.py", status=active)
    private_version = BotVersion.objects.create(bot=private_bot, number=1, source=marked_source("alice-private"),
                                                filename="stealth.py", status=active)
    ladder = Ladder.objects.create(name="evo-ladder", game=GAME, options=full_options(), players_per_match=2,
                                   created_by=charlie)
    tournament = Tournament.objects.create(name="evo-cup", game=GAME, options=full_options(), players_per_table=2,
                                           created_by=charlie, seed=3)
    # bob's private bot is entered too: everyone but bob and staff reads its entry as null (Schemathesis runs as alice).
    secret_bot = Bot.objects.create(owner=bob, name="secret", game=GAME, visibility=Bot.Visibility.PRIVATE)
    secret_version = BotVersion.objects.create(bot=secret_bot, number=1, source=marked_source("bob-private"),
                                               filename="secret.py", status=active)
    entered = (version, other_version, secret_version)
    Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in entered])
    for v in (version, other_version):
        Rating.objects.create(ladder=ladder, bot_version=v, mu=25.0, sigma=8.3, games=1)
        Rating.objects.create(tournament=tournament, bot_version=v, mu=25.0, sigma=8.3)
    finished = make_match(ladder=ladder, seed=FINISHED_SEED, versions=(version, other_version),
                          status=Match.Status.FINISHED)
    document = finished_document(finished.pk, version.pk, other_version.pk)
    Replay.from_document(finished, document).save()
    outcome = document["footer"]["outcome"]
    for seat in finished.seats.all():
        seat.score, seat.rank = outcome["scores"][seat.number], outcome["ranks"][seat.number]
        seat.log = log_marker("alice" if seat.number == 0 else "bob")
        seat.save()
    running = make_match(ladder=ladder, seed=RUNNING_SEED, versions=(version, other_version),
                         status=Match.Status.RUNNING)
    save_progress(running.pk, 1, live_actions_so_far())
    queued = make_match(tournament=tournament, round=1, seed=5, versions=(version, other_version),
                        status=Match.Status.QUEUED)
    return World(users, tokens, bot, private_bot, other_bot, version, version2, other_version, private_version,
                 ladder, tournament, finished, running, queued, extra={"secret_version": secret_version})


FINISHED_SEED, RUNNING_SEED = 11, 12


def full_options() -> dict[str, Any]:
    return load_game(GAME).validate_options(OPTIONS)


def make_match(versions: tuple[BotVersion, ...], seed: int, status: str, **where: Any) -> Match:
    from django.utils import timezone

    finished_at = timezone.now() if status == Match.Status.FINISHED else None
    match = Match.objects.create(game=GAME, num_players=len(versions), seed=seed, options=full_options(),
                                 status=status, finished_at=finished_at, **where)
    Seat.objects.bulk_create([Seat(match=match, number=n, bot_version=v) for n, v in enumerate(versions)])
    return match


@functools.cache
def _played(seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    game = load_game(GAME)
    state = game.new_state(2, seed, full_options())
    actions = []
    while (decision := state.decision()) is not None:
        actions.append({"seat": decision.seat, "choice": 0, "ms": 3})
        state.choose(0)
    outcome = state.outcome()
    assert outcome is not None
    return actions, outcome.to_dict()


def finished_document(match_id: int, *version_ids: int, seed: int = FINISHED_SEED) -> dict[str, Any]:
    actions, outcome = _played(seed)
    game = load_game(GAME)
    header = replay_format.make_header(GAME, game.rules_version, full_options(), seed,
                                       {"move_ms": 1000, "bank_ms": 10000},
                                       [{"bot_version": v} for v in version_ids], match_id)
    document = {"header": header, "actions": actions,
                "footer": replay_format.make_footer(outcome, [0, 0], [False, False])}
    document["footer"]["digest"] = verify_document(document)["digest"]
    return document


def live_actions_so_far(seed: int = RUNNING_SEED) -> list[dict[str, Any]]:
    return _played(seed)[0][:LIVE_STEPS]


def live_hands(seat: int, seed: int = RUNNING_SEED) -> list[Any]:
    """Every hand the seat held in the running match (of this seed) so far (what others must never see)."""
    game = load_game(GAME)
    state = game.new_state(2, seed, full_options())
    hands = [state.view(seat)["seats"][seat]["hand"]]
    for record in live_actions_so_far(seed):
        state.choose(record["choice"])
        hands.append(state.view(seat)["seats"][seat]["hand"])
    return hands


def spellings(value: Any) -> list[str]:
    """The ways a JSON value may be spelled in a response body."""
    return [json.dumps(value), json.dumps(value, separators=(",", ":")), json.dumps(value, ensure_ascii=False)]


def body_text(response: Any) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def base64_of(data: bytes) -> str:
    return base64.b64encode(data).decode()


def all_routes() -> dict[str, str]:
    """Every named route of the URLconf (API, pages, viewer, admin, accounts): its name (namespaced) → its pattern,
    with the prefixes of the includes it sits in."""
    from django.urls import URLPattern, URLResolver, get_resolver

    routes: dict[str, str] = {}

    def walk(patterns: list[Any], prefix: str, namespace: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                inner = f"{namespace}:{p.namespace}" if namespace and p.namespace else p.namespace or namespace
                walk(p.url_patterns, prefix + str(p.pattern).lstrip("^"), inner)
            elif isinstance(p, URLPattern) and p.name:
                name = f"{namespace}:{p.name}" if namespace else str(p.name)
                routes.setdefault(name, prefix + str(p.pattern).lstrip("^"))

    walk(get_resolver().url_patterns, "", "")
    return routes


def api_routes() -> dict[str, str]:
    """Every route under /api/: its name (namespaced) → its pattern."""
    return {name: pattern for name, pattern in all_routes().items() if pattern.startswith("api/")}
