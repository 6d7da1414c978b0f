"""manage.py move_replays [--to store] [--limit N] [--check]: move the action logs still in the database (written
before the replay store, or pending) to the store, each re-simulated, written, read back and checked on the way
(replays/moves.py). Safe to run again, and beside the workers: a moved replay is skipped, and one moved twice at once
is moved once.

With --check nothing moves: each replay in the store is read and checked against its digest, and the command exits 1
when a file is missing or corrupt, or any replay is still in the database.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from replays.models import Replay
from replays.moves import move_replays
from replays.storage import ReplayUnavailable
from replays.verify import ReplayMismatch


class Command(BaseCommand):
    help = ("Move replays from the database to the replay store, verifying each; with --check, only check the "
            "store's files and count what is left (exit 1 if anything is).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--to", choices=["store"], default="store",
                            help="where the action logs go: the replay store of the settings (the only one)")
        parser.add_argument("--limit", type=int, default=None, help="move at most this many (oldest first)")
        parser.add_argument("--check", action="store_true",
                            help="move nothing; check each stored file; exit 1 if any is bad or any replay is left")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["limit"] is not None and opts["limit"] < 1:
            raise CommandError(f"--limit must be at least 1, got {opts['limit']}")
        if opts["check"]:
            self.check_store()
            return
        report = move_replays(Replay.objects.all(), opts["limit"])
        for line in report.mismatched:
            self.stdout.write(f"MISMATCH: {line}")
        self.stdout.write(f"{report.moved} moved, {len(report.mismatched)} mismatched (left in the database), "
                          f"{self.in_database()} in the database, {self.in_store()} in the store")
        if report.unavailable:
            raise CommandError(f"the replay store failed; run again when it answers: {report.unavailable}")
        if report.mismatched:
            raise CommandError(f"{len(report.mismatched)} replay(s) do not verify and were not moved", returncode=1)

    def check_store(self) -> None:
        bad = 0
        stored = Replay.objects.exclude(location="").order_by("pk").only("match_id", *Replay.ACTION_LOG_FIELDS)
        for replay in stored.iterator(chunk_size=500):
            try:
                replay.raw_bytes()
            except (ReplayMismatch, ReplayUnavailable) as exc:
                bad += 1
                self.stdout.write(f"match {replay.match_id}: BAD: {exc}")
        left = self.in_database()
        pending = Replay.objects.filter(pending=True).count()
        self.stdout.write(f"{self.in_store() - bad} in the store and sound, {bad} bad, {left} in the database "
                          f"({pending} pending)")
        if bad or left:
            raise CommandError(f"{bad} stored replay(s) are missing or corrupt, {left} are still in the database",
                               returncode=1)

    @staticmethod
    def in_database() -> int:
        return Replay.objects.filter(location="").count()

    @staticmethod
    def in_store() -> int:
        return Replay.objects.exclude(location="").count()
