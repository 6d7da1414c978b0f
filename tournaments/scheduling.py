"""Creating and starting tournaments: validate everything first, then write all rows in one transaction."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from engine import load_game
from tournaments.advancement import schedule_start
from tournaments.dispatch import enqueue_matches
from tournaments.models import BotVersion, Entry, Match, Tournament


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
    check_size(tournament, len(versions))


def planned_matches(tournament: Tournament, entrants: int) -> int:
    """The matches the tournament schedules at once: all of a round robin, or one round of the others."""
    per_table = tournament.games_per_set
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return math.comb(entrants, tournament.players_per_table) * per_table
    if tournament.format == Tournament.Format.SINGLE_ELIMINATION:
        per_table *= tournament.best_of
    return -(-entrants // tournament.players_per_table) * per_table


def check_size(tournament: Tournament, entrants: int) -> None:
    """Raise ValidationError when the tournament would schedule more than LUDUS_TOURNAMENT_MAX_MATCHES at once."""
    planned, cap = planned_matches(tournament, entrants), settings.LUDUS_TOURNAMENT_MAX_MATCHES
    if planned > cap:
        raise ValidationError({"games_per_set": (
            f"{entrants} entries at tables of {tournament.players_per_table} with {tournament.games_per_set} "
            f"game(s) per set make {planned} matches at once; the limit is {cap} (LUDUS_TOURNAMENT_MAX_MATCHES): "
            "use fewer games per set or fewer entries")})


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
    """draft → running: create the ratings and schedule round 1 (round robin: every round); enqueue on commit.

    Later rounds are scheduled as rounds end (tournaments/advancement.py). enqueue=False leaves the matches queued for
    a caller that runs them itself (tests, tools). Raises ValidationError, and changes nothing, when the
    tournament is not a draft (a second start) or its settings or entries are bad.
    """
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        if locked is None:
            raise ValidationError(f"tournament {tournament.pk} does not exist")
        if locked.state != Tournament.State.DRAFT:
            raise ValidationError(f"tournament {tournament.pk} is {locked.state}, not a draft: "
                                  "it was started already and cannot be started again")
        locked.full_clean()
        entries = locked.entry_set.filter(withdrawn_at__isnull=True).select_related("bot_version__bot")
        versions = [entry.bot_version for entry in entries.order_by("pk")]
        check_entries(locked, versions)
        locked.state = Tournament.State.RUNNING
        locked.save(update_fields=["state"])
        matches = schedule_start(locked)
        if enqueue:
            enqueue_matches([match.pk for match in matches])
    tournament.state, tournament.current_round = locked.state, locked.current_round
    return matches
