"""Unrated work kept apart (docs/tournaments.md, "Unrated games"): try-outs, validations, branches and version
tests are unrated matches in the system's internal ladders (tournaments/system_ladders.py). The public pages and a
bot's record leave them out; they are one click away for whoever may see them: their bots' owners, and staff. (An
organiser's unrated match on a public ladder is that ladder's game, shown like the others.)"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum

from tournaments.models import Bot, Ladder, Match, Seat
from tournaments.pages.queries import Record
from tournaments.system_ladders import internal_ladders
from tournaments.visibility import is_owner, is_staff

UNRATED = "unrated"  # the match list's kinds: the public games (the default), or the unrated work this user may see
KINDS = [("", "ladders and tournaments"), (UNRATED, "unrated: try-outs, validations, branches")]


def is_internal(ladder: Ladder) -> bool:
    return Ladder.objects.filter(internal_ladders(), pk=ladder.pk).exists()


def public_matches() -> QuerySet[Match]:
    """The matches of ladders and tournaments, without the unrated work."""
    return Match.objects.exclude(internal_ladders("ladder__"))


def unrated_matches(user: Any) -> QuerySet[Match]:
    """The unrated work this user may list: all of it for staff, the games of their own bots for others."""
    matches = Match.objects.filter(internal_ladders("ladder__"))
    if is_staff(user):
        return matches
    if not user.is_authenticated:
        return matches.none()
    return matches.filter(Exists(Seat.objects.filter(bot_version__bot__owner=user, match=OuterRef("pk"))))


def of_kind(kind: str, user: Any) -> QuerySet[Match]:
    """The public matches, or the unrated work this user may see."""
    return unrated_matches(user) if kind == UNRATED else public_matches()


def can_see_unrated(user: Any, bot: Bot) -> bool:
    """Whether the bot page links to the bot's unrated games: for its owner and staff."""
    return is_owner(user, bot.owner_id) or is_staff(user)


def public_competitions(choices: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The match filter's competitions without the internal ladders."""
    internal = {f"ladder:{pk}" for pk in Ladder.objects.filter(internal_ladders()).values_list("pk", flat=True)}
    return [choice for choice in choices if choice[0] not in internal]


def rated_record(bot: Bot) -> Record:
    """The bot's record over its finished games in ladders and tournaments: games, wins, faults, forfeits and mean
    rank, per version too. Unrated work never counts (a rejected version's validation forfeit is not the bot's)."""
    record = Record()
    rows = (Seat.objects.filter(bot_version__bot=bot, match__status=Match.Status.FINISHED)
            .exclude(internal_ladders("match__ladder__"))
            .values("bot_version_id")
            .annotate(games=Count("pk"), wins=Count("pk", filter=Q(rank=1)), faults=Sum("faults"),
                      forfeits=Count("pk", filter=Q(forfeited=True)), rank_total=Sum("rank"))
            .order_by("bot_version_id"))
    for row in rows:
        record.games += row["games"]
        record.wins += row["wins"]
        record.faults += row["faults"] or 0
        record.forfeits += row["forfeits"]
        record.rank_total += row["rank_total"] or 0
        record.by_version[row["bot_version_id"]] = [row["games"], row["wins"]]
    return record
