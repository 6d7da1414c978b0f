"""The bot lifecycle: upload a version, have it validated, flag bots that keep faulting
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

- `upload_bot_version` stores an immutable version. A malformed upload raises `BadUpload` and stores nothing; an
  upload that does not compile is kept as a `rejected` version whose log shows each error, so its author can read
  it. Anything else is `pending` and is validated once the transaction commits.
- Validation itself is `workers.validation.validate_version`, run by Celery when a broker is configured, else by
  the embedded process pool.
- `flag_faulty_bots` marks bots whose recent matches keep faulting or forfeiting, for their owners.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone

from engine import InvalidOptions, load_game
from tournaments.dispatch import runner
from tournaments.models import Bot, BotVersion, Match, Seat
from tournaments.system_ladders import internal_ladders
from tournaments.uploads import BadUpload, CheckedUpload, check_upload, upload_limits

logger = logging.getLogger(__name__)

TRYOUT_USER = "tryout"  # owns the unrated versions of manage.py try_bot; never flagged, never in a competition

__all__ = ["TRYOUT_USER", "BadUpload", "check_bot_upload", "dispatch_validation", "flag_faulty_bots",
           "revalidate_stale", "upload_bot_version", "upload_limits"]


def check_bot_upload(owner: Any, bot_name: str, game: str, filename: str, data: bytes) -> CheckedUpload:
    """Every check that needs no write: the name, the game, the owner's existing bot, the file. Raises BadUpload."""
    try:
        validate_slug(bot_name)
    except ValidationError:
        raise BadUpload(f"bot name {bot_name!r} must be letters, digits, '-' or '_' (a slug)") from None
    if len(bot_name) > Bot._meta.get_field("name").max_length:  # type: ignore[operator]
        raise BadUpload(f"bot name {bot_name!r} is longer than 64 characters")
    try:
        load_game(game)
    except InvalidOptions as exc:
        raise BadUpload(str(exc)) from None
    existing = Bot.objects.filter(owner=owner, name=bot_name).values_list("game", flat=True).first()
    if existing is not None and existing != game:
        raise BadUpload(f"your bot {bot_name!r} plays {existing!r}, not {game!r}; choose another name for a new bot")
    return check_upload(filename, data, upload_limits())


def upload_bot_version(owner: Any, bot_name: str, game: str, filename: str, data: bytes,
                       description: str = "", dispatch: bool = True) -> BotVersion:
    """Store the next version of owner's bot (created if needed); validation is enqueued on commit.

    dispatch=False leaves a pending version for a caller that validates it itself (manage.py upload_bot).

    Raises BadUpload (nothing stored) for a malformed upload, a bad name or an unknown game. Source that does not
    compile is stored as a rejected version with the compile errors as its validation log.
    """
    checked = check_bot_upload(owner, bot_name, game, filename, data)
    with transaction.atomic():
        bot, _ = Bot.objects.get_or_create(owner=owner, name=bot_name,
                                           defaults={"game": game, "description": description})
        bot = Bot.objects.select_for_update().get(pk=bot.pk)  # serializes version numbers per bot
        if bot.game != game:
            raise BadUpload(f"your bot {bot_name!r} plays {bot.game!r}, not {game!r}")
        if description and bot.description != description:
            bot.description = description
            bot.save(update_fields=["description"])
        version = BotVersion.objects.create(
            bot=bot, number=next_number(bot), source=checked.data, filename=checked.filename,
            language=checked.manifest.language,
            status=BotVersion.Status.PENDING if checked.compiles() else BotVersion.Status.REJECTED,
            validation_log="" if checked.compiles() else checked.rejection_log(),
        )
        if dispatch and version.status == BotVersion.Status.PENDING:
            version_id = version.pk
            transaction.on_commit(lambda: dispatch_validation(version_id))
    return version


def next_number(bot: Bot) -> int:
    last = bot.versions.order_by("-number").values_list("number", flat=True).first()
    return (last or 0) + 1


def dispatch_validation(version_id: int) -> Any:
    """Send now: to Celery when a broker is configured, else to the embedded process pool (a Future)."""
    return runner().send_validation(version_id)


def revalidate_stale() -> int:
    """Dispatch again every version whose validation was lost (a dead worker, a broker outage); return how many."""
    stale = runner().stale_validations()
    for version_id in stale:
        dispatch_validation(version_id)
    return len(stale)


# --- flagging -----------------------------------------------------------------------------------------------------


def flag_faulty_bots(bot_ids: Iterable[int] | None = None) -> int:
    """Set or clear Bot.flagged_reason from each bot's last finished matches; return how many are flagged now.

    A bot is flagged when its last LUDUS_FLAG_FORFEITS matches were all forfeits, or when at least
    LUDUS_FLAG_FAULT_PERCENT % of its last LUDUS_FLAG_WINDOW matches (once it has played that many) had faults.
    Built-in bots are never flagged. Call it after results are recorded, or periodically (workers.flag_faulty_bots).
    """
    bots = Bot.objects.filter(versions__builtin="").exclude(owner__username=TRYOUT_USER).distinct()
    if bot_ids is not None:
        bots = bots.filter(pk__in=list(bot_ids))
    flagged = 0
    for bot in bots:
        reason = fault_reason(bot)
        if reason != bot.flagged_reason:
            Bot.objects.filter(pk=bot.pk).update(flagged_reason=reason, flagged_at=timezone.now() if reason else None)
        flagged += bool(reason)
    return flagged


def fault_reason(bot: Bot) -> str:
    """Why the bot should be flagged, or '' when its recent record is fine."""
    window = max(settings.LUDUS_FLAG_WINDOW, settings.LUDUS_FLAG_FORFEITS)
    recent = list(
        Seat.objects.filter(bot_version__bot=bot, bot_version__builtin="", match__status=Match.Status.FINISHED)
        .exclude(internal_ladders("match__ladder__"))  # unrated work (a validation) never flags a bot
        .order_by("-match__finished_at", "-match_id")
        .values_list("faults", "forfeited", "bot_version__number")[:window]
    )
    streak = settings.LUDUS_FLAG_FORFEITS
    if len(recent) >= streak and all(forfeited for _, forfeited, _ in recent[:streak]):
        versions = sorted({number for _, _, number in recent[:streak]})
        return f"forfeited its last {streak} matches (version {', '.join(map(str, versions))})"
    sample = recent[: settings.LUDUS_FLAG_WINDOW]
    faulty = sum(1 for faults, _, _ in sample if faults)
    if len(sample) >= settings.LUDUS_FLAG_WINDOW and faulty * 100 >= settings.LUDUS_FLAG_FAULT_PERCENT * len(sample):
        return f"faulted in {faulty} of its last {len(sample)} matches"
    return ""
