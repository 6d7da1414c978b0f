"""manage.py upload_bot --owner USER --name NAME --game GAME PATH: upload a version, then show its validation."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.bot_lifecycle import BadUpload, upload_bot_version
from tournaments.dispatch import RunnerUnavailable, runner
from tournaments.models import BotVersion

UNSETTLED = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)


class Command(BaseCommand):
    help = ("Upload a bot file (.py, or .zip with main.py) as the next version of a bot, then print its validation "
            "result. Without a broker the smoke match runs here; with one, --wait polls until a worker is done.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the bot: a .py file or a .zip with main.py")
        parser.add_argument("--owner", required=True, help="the username of the bot's owner")
        parser.add_argument("--name", required=True, help="the bot's name (a slug); a new name creates the bot")
        parser.add_argument("--game", required=True)
        parser.add_argument("--description", default="")
        parser.add_argument("--wait", action="store_true", help="with a broker: wait for the worker's verdict")
        parser.add_argument("--timeout", type=float, default=300.0, help="seconds --wait waits (default 300)")

    def handle(self, *args: Any, **opts: Any) -> None:
        owner = self.find_owner(opts["owner"])
        data, filename = self.read(opts["path"])
        inline = not settings.CELERY_BROKER_URL
        try:
            version = upload_bot_version(owner, opts["name"], opts["game"], filename, data, opts["description"],
                                         dispatch=not inline)
        except BadUpload as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"uploaded {owner.get_username()}/{version.bot.name} version {version.number}: "
                          f"id {version.pk}")
        if version.status in UNSETTLED:
            if inline:
                self.validate_here(version)
            elif opts["wait"]:
                self.wait_for_worker(version, opts["timeout"])
        self.report(version)

    def find_owner(self, username: str) -> Any:
        owner = get_user_model().objects.filter(username=username).first()
        if owner is None:
            raise CommandError(f"no user {username!r}; create it first (manage.py createsuperuser, or the admin)")
        return owner

    def read(self, path: str) -> tuple[bytes, str]:
        file = Path(path)
        if not file.is_file():
            raise CommandError(f"{path}: no such file")
        limit = settings.LUDUS_UPLOAD_MAX_BYTES
        if file.stat().st_size > limit:
            raise CommandError(f"{file.name} is {file.stat().st_size} bytes, over the upload limit of {limit} bytes")
        return file.read_bytes(), file.name

    def validate_here(self, version: BotVersion) -> None:
        self.stdout.write("validating: a smoke match in the sandbox against the built-in bots...")
        try:
            runner().validate_here(version.pk)
        except RunnerUnavailable as exc:
            raise CommandError(f"version {version.pk} is stored but could not be validated here: {exc}") from exc

    def wait_for_worker(self, version: BotVersion, timeout: float) -> None:
        self.stdout.write(f"waiting up to {timeout:.0f} s for a worker to validate it...")
        deadline = time.monotonic() + timeout
        while BotVersion.objects.filter(pk=version.pk, status__in=UNSETTLED).exists():
            if time.monotonic() > deadline:
                raise CommandError(f"version {version.pk} is still not validated after {timeout:.0f} s; "
                                   "are the workers running?")
            time.sleep(0.5)  # a poll interval; the deadline decides

    def report(self, version: BotVersion) -> None:
        version.refresh_from_db()
        self.stdout.write(f"status: {version.status}")
        if version.validation_log:
            self.stdout.write(version.validation_log.rstrip("\n"))
        if version.status in UNSETTLED:
            self.stdout.write("validation is queued for the workers; rerun with --wait to see its result")
        if version.status == BotVersion.Status.REJECTED:
            raise CommandError(f"version {version.number} of {version.bot.name} was rejected (see the log above)")
