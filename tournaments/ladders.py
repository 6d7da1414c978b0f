"""Ladders run continuously (docs/architecture.md#tournaments-ladders-and-ratings): keep a bounded number of rated
matches queued, chosen by rating.

`schedule_ladder` tops one ladder up to `max_queued` queued-or-running matches, under a row lock on the ladder so
concurrent callers (beat, `run_ladder`, a result) never overshoot. Tables come from
tournaments/formats/ladder.pick_tables over the ladder's active entries, seeded from the ladder's history, so the
same history gives the same tables. A paused ladder makes no matches; its queued ones still run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from tournaments.dispatch import enqueue_match
from tournaments.formats.ladder import Candidate, Matchmaking, pick_tables
from tournaments.formats.round_robin import derive_seed
from tournaments.models import BotVersion, Ladder, LadderEntry, Match, Rating, Seat
from tournaments.new_matches import create_match
from tournaments.ratings import MODEL
from tournaments.visibility import hidden_versions, secret_seed

PENDING = [Match.Status.QUEUED, Match.Status.RUNNING]


def join_ladder(ladder: Ladder, versions: Sequence[BotVersion], by: Any = None) -> list[LadderEntry]:
    """Enter active versions of bots for the ladder's game, each at the prior rating; raises ValidationError.

    `by`: the user asking (self-service); a version they may not see (another's private bot) is refused exactly
    as a missing one would be (tournaments.visibility)."""
    hidden = hidden_versions(by, [v.pk for v in versions]) if by is not None else set()
    for version in versions:
        if version.pk in hidden:
            raise ValidationError(f"bot version {version.pk} does not exist")
        if version.status != BotVersion.Status.ACTIVE:
            raise ValidationError(f"{version.label} is {version.status}, not active")
        if version.bot.game and version.bot.game != ladder.game:
            raise ValidationError(f"{version.label} plays {version.bot.game}, not {ladder.game}")
    with transaction.atomic():
        entries = [LadderEntry.objects.get_or_create(ladder=ladder, bot_version=v)[0] for v in versions]
        Rating.objects.bulk_create(
            [Rating(ladder=ladder, bot_version=v, mu=MODEL.mu, sigma=MODEL.sigma) for v in versions],
            ignore_conflicts=True,
        )
    return entries


def candidates(ladder: Ladder) -> list[Candidate[int]]:
    """The ladder's active entries with their ratings and the id of their latest match (for idleness)."""
    versions = list(LadderEntry.objects.filter(ladder=ladder, withdrawn_at__isnull=True,
                                               bot_version__status=BotVersion.Status.ACTIVE)
                    .order_by("bot_version_id").values_list("bot_version_id", flat=True))
    ratings = {r.bot_version_id: r for r in Rating.objects.filter(ladder=ladder, bot_version_id__in=versions)}
    last = dict(Seat.objects.filter(match__ladder=ladder, bot_version_id__in=versions)
                .values_list("bot_version_id").annotate(Max("match_id")))
    pool = []
    for version in versions:
        rating = ratings.get(version)
        mu, sigma, games = (rating.mu, rating.sigma, rating.games) if rating else (MODEL.mu, MODEL.sigma, 0)
        pool.append(Candidate(id=version, mu=mu, sigma=sigma, games=games, last_played=last.get(version, 0)))
    return pool


def schedule_ladder(ladder_id: int, enqueue: bool = True) -> list[Match]:
    """Top the ladder up to max_queued pending matches; [] when paused, full, or short of entrants."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().get(pk=ladder_id)
        if ladder.paused:
            return []
        room = ladder.max_queued - ladder.matches.filter(status__in=PENDING).count()
        pool = candidates(ladder)
        if room <= 0 or len(pool) < ladder.players_per_match:
            return []
        made = ladder.matches.count()  # the batch's place in history: seeds differ per batch, repeat per history
        tables = pick_tables(pool, ladder.players_per_match, room, derive_seed(ladder.pk, made, ladder.rating_seq),
                             Matchmaking.from_settings(ladder.matchmaking))
        # Seeds that repeat per history, as the tables do, but that nobody without SECRET_KEY can compute: a deck
        # known in advance is a game known in advance.
        matches = [create_ladder_match(ladder, seats, secret_seed("ladder", ladder.pk, made + i))
                   for i, seats in enumerate(tables)]
        if enqueue:
            for match in matches:
                enqueue_match(match)
    return matches


def create_ladder_match(ladder: Ladder, seats: Sequence[int], seed: int) -> Match:
    return create_match(ladder, seats, seed)


def schedule_ladders(ladder_ids: Sequence[int] | None = None, enqueue: bool = True) -> int:
    """The beat task's work: top up every unpaused ladder (or the given ones); return how many matches were made."""
    ladders = Ladder.objects.filter(paused=False)
    if ladder_ids is not None:
        ladders = ladders.filter(pk__in=list(ladder_ids))
    return sum(len(schedule_ladder(pk, enqueue)) for pk in ladders.order_by("pk").values_list("pk", flat=True))
