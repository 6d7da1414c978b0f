"""The trusted built-in bots as database entrants: Bots owned by the system user `ludus`, one active version each."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction

from engine.bots import bot_names, is_bot_name
from tournaments.models import Bot, BotVersion

SYSTEM_USER = "ludus"


def system_user() -> User:
    user, created = get_user_model().objects.get_or_create(username=SYSTEM_USER)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def ensure_builtin(name: str, engine_bot: str | None = None) -> BotVersion:
    """The active version of the built-in entrant `name`, which plays the engine bot `engine_bot` (default: name).

    Extra entrants (e.g. "greedy-2") reuse an engine bot under another name; each seat gets its own seed.
    """
    engine_bot = engine_bot or name
    if not is_bot_name(engine_bot):
        raise ValueError(f"unknown built-in bot {engine_bot!r}; known bots: {', '.join(bot_names())}")
    with transaction.atomic():
        bot, _ = Bot.objects.get_or_create(
            owner=system_user(), name=name,
            defaults={"game": "", "description": f"built-in {engine_bot} bot, for every game"},
        )
        version = bot.versions.filter(builtin=engine_bot, status=BotVersion.Status.ACTIVE).order_by("number").last()
        if version is None:
            number = (bot.versions.order_by("number").values_list("number", flat=True).last() or 0) + 1
            version = BotVersion.objects.create(
                bot=bot, number=number, builtin=engine_bot, status=BotVersion.Status.ACTIVE,
                filename=f"engine/bots/{engine_bot}", source=f"builtin:{engine_bot}".encode(),
                validation_log="built-in: trusted, runs in-process",
            )
    return version


def ensure_builtins() -> dict[str, BotVersion]:
    """One entrant per engine bot, named like it."""
    return {name: ensure_builtin(name) for name in bot_names()}
