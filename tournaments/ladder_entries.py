"""Self-serve ladders: an author enters an active version of their own bot on an open ladder, or withdraws it.

The organiser marks a ladder open (`Ladder.is_open`, in the admin); staff may enter and withdraw on any ladder. A
version the user may not see answers like one that does not exist (tournaments.visibility); another's public version
is refused by name. The pages (bot page) and the API (`/api/ladders/ID/entries/`) both call these two functions.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from tournaments import visibility
from tournaments.ladders import join_ladder
from tournaments.models import BotVersion, Ladder, LadderEntry


class EntryRefused(ValueError):
    """Why a self-serve entry or withdrawal was refused, in one line."""


def own_version(user: Any, version_id: int) -> BotVersion:
    """The user's own version (any version for staff); raises EntryRefused."""
    version = visibility.visible_versions(user).select_related("bot").filter(pk=version_id).first()
    if version is None:
        raise EntryRefused(f"bot version {version_id} does not exist")
    if not visibility.is_owner(user, version.bot.owner_id):
        raise EntryRefused(f"{version.label} is not yours: only its owner enters it on a ladder")
    return version


def _check_open(user: Any, ladder: Ladder) -> None:
    if not ladder.is_open and not visibility.is_staff(user):
        raise EntryRefused(f"ladder {ladder.name!r} is not open to entries: its organiser enters bots")


def enter_ladder(user: Any, ladder: Ladder, version_id: int) -> LadderEntry:
    """Enter the user's active version (again, if it was withdrawn); raises EntryRefused."""
    _check_open(user, ladder)
    version = own_version(user, version_id)
    current = LadderEntry.objects.filter(ladder=ladder, bot_version=version).first()
    if current is not None and current.withdrawn_at is None:
        raise EntryRefused(f"{version.label} is already on ladder {ladder.name!r}")
    with transaction.atomic():
        try:
            [entry] = join_ladder(ladder, [version], by=user)
        except ValidationError as exc:
            raise EntryRefused("; ".join(exc.messages)) from exc
        if entry.withdrawn_at is not None:
            entry.withdrawn_at = None
            entry.save(update_fields=["withdrawn_at"])
    return entry


def withdraw_from_ladder(user: Any, ladder: Ladder, version_id: int) -> LadderEntry:
    """Withdraw the user's version: no new matches, its standing stays (marked withdrawn); raises EntryRefused."""
    _check_open(user, ladder)
    version = own_version(user, version_id)
    entry = LadderEntry.objects.filter(ladder=ladder, bot_version=version, withdrawn_at__isnull=True).first()
    if entry is None:
        raise EntryRefused(f"{version.label} is not on ladder {ladder.name!r}")
    entry.withdrawn_at = timezone.now()
    entry.save(update_fields=["withdrawn_at"])
    return entry
