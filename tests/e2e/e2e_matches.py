"""Real matches for the browser tests: built-in bots, a tournament, the real runner (workers.runner.run_match)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from tournaments.builtins import ensure_builtin
from tournaments.models import Bot, BotVersion, Ladder, LadderEntry, Match, Seat, Tournament
from tournaments.new_matches import create_match
from tournaments.scheduling import create_tournament, start_tournament
from workers.runner import run_match

ENGINE_BOTS = ("greedy", "random")


def entrants(count: int) -> list[BotVersion]:
    """greedy, random, greedy-2, random-2...: distinct built-in versions."""
    names = [ENGINE_BOTS[i % 2] + (f"-{i // 2 + 1}" if i >= 2 else "") for i in range(count)]
    return [ensure_builtin(name, ENGINE_BOTS[i % 2]) for i, name in enumerate(names)]


def owned_builtin(owner: Any, name: str, engine_bot: str = "greedy", game: str = "evolution") -> BotVersion:
    """A trusted built-in engine bot entered under a user's own name, so pages treat that user as its owner."""
    bot = Bot.objects.create(owner=owner, name=name, game=game)
    return BotVersion.objects.create(bot=bot, number=1, builtin=engine_bot, status=BotVersion.Status.ACTIVE,
                                     source=f"builtin:{engine_bot}".encode(), filename=f"engine/bots/{engine_bot}")


def schedule(game: str, players: int, versions: list[BotVersion] | None = None, seed: int = 7,
             name: str | None = None) -> tuple[Tournament, list[Match]]:
    versions = versions or entrants(players)
    organiser, _ = get_user_model().objects.get_or_create(username="organiser")
    tournament = create_tournament(versions, name=name or f"{game} cup", game=game, players_per_table=players,
                                   games_per_set=1, seed=seed, created_by=organiser)
    return tournament, start_tournament(tournament, enqueue=False)


def play_match(game: str, players: int, seed: int = 7) -> Match:
    """One finished match of `game` between `players` built-in bots."""
    _, matches = schedule(game, players, seed=seed)
    match = matches[0]
    assert run_match(match.pk) == "finished", Match.objects.get(pk=match.pk).error
    match.refresh_from_db()
    return match


def ladder_match(game: str, players: int, seed: int = 5, name: str = "open ladder") -> Match:
    """A ladder with built-in entrants and one match between them, played by the real runner."""
    versions = entrants(players)
    ladder, _ = Ladder.objects.get_or_create(name=name, defaults={"game": game, "players_per_match": players})
    for version in versions:
        LadderEntry.objects.get_or_create(ladder=ladder, bot_version=version)
    match = Match.objects.create(ladder=ladder, game=game, num_players=players, seed=seed)
    for number, version in enumerate(versions):
        Seat.objects.create(match=match, number=number, bot_version=version)
    assert run_match(match.pk) == "finished", Match.objects.get(pk=match.pk).error
    match.refresh_from_db()
    return match


def short_evolution(owner: Any) -> Match:
    """A short game of Evolution (the short deck) between greedy and random on an owner's ladder: quick to analyse."""
    ladder = Ladder.objects.create(name="short evolution", game="evolution", players_per_match=2, created_by=owner,
                                   options={"deck": "short"})
    match = create_match(ladder, [ensure_builtin("greedy"), ensure_builtin("random")], 8)
    assert run_match(match.pk) == "finished", Match.objects.get(pk=match.pk).error
    return match
