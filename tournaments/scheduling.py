"""Creating and starting tournaments: validate everything first, then write all rows in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from engine import load_game
from tournaments.formats import round_robin
from tournaments.models import BotVersion, Entry, Match, Rating, Seat, Tournament
from tournaments.ratings import MODEL
from tournaments.services import enqueue_match


def check_entries(tournament: Tournament, versions: Sequence[BotVersion]) -> None:
    """Raise ValidationError when the entries cannot fill a table or do not suit the game."""
    if len({v.pk for v in versions}) != len(versions):
        raise ValidationError({"entries": "each bot version may enter only once"})
    if len(versions) < tournament.players_per_table:
        raise ValidationError({
            "entries": f"a table of {tournament.players_per_table} needs at least "
                       f"{tournament.players_per_table} bots, got {len(versions)}"
        })
    for version in versions:
        if version.status != BotVersion.Status.ACTIVE:
            raise ValidationError({"entries": f"{version.label} is {version.status}, not active"})
        if version.bot.game and version.bot.game != tournament.game:
            raise ValidationError({"entries": f"{version.label} plays {version.bot.game}, not {tournament.game}"})


def create_tournament(versions: Sequence[BotVersion], **fields: Any) -> Tournament:
    """Validate, then create a draft tournament with its entries; raises ValidationError and creates nothing."""
    tournament = Tournament(**fields)
    tournament.full_clean()
    check_entries(tournament, versions)
    with transaction.atomic():
        tournament.options = load_game(tournament.game).validate_options(tournament.options)
        tournament.save()
        Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v) for v in versions])
    return tournament


def start_tournament(tournament: Tournament, enqueue: bool = True) -> list[Match]:
    """draft → running: schedule every match, create its seats and the ratings, and enqueue them on commit.

    enqueue=False leaves the matches queued for a caller that runs them itself (tests, tools).
    """
    versions = list(tournament.entries.select_related("bot").order_by("pk"))
    check_entries(tournament, versions)
    by_id = {v.pk: v for v in versions}
    with transaction.atomic():
        if Tournament.objects.filter(pk=tournament.pk, state=Tournament.State.DRAFT).update(
            state=Tournament.State.RUNNING
        ) != 1:
            raise ValidationError(f"tournament {tournament.pk} is not a draft; it was started already")
        tournament.state = Tournament.State.RUNNING
        Rating.objects.bulk_create(
            [Rating(tournament=tournament, bot_version=v, mu=MODEL.mu, sigma=MODEL.sigma) for v in versions],
            ignore_conflicts=True,
        )
        pairings = round_robin.schedule(list(by_id), tournament.players_per_table, tournament.games_per_set,
                                        tournament.seed)
        matches = [_create_match(tournament, pairing) for pairing in pairings]
        for match in matches if enqueue else []:
            enqueue_match(match)
    return matches


def _create_match(tournament: Tournament, pairing: round_robin.Pairing[int]) -> Match:
    match = Match.objects.create(
        tournament=tournament, round=pairing.round, game=tournament.game, num_players=len(pairing.seats),
        seed=pairing.seed, options=tournament.options, move_ms=tournament.move_ms, bank_ms=tournament.bank_ms,
        max_faults=tournament.max_faults, rated=True,
    )
    Seat.objects.bulk_create([
        Seat(match=match, number=number, bot_version_id=version_id) for number, version_id in enumerate(pairing.seats)
    ])
    return match
