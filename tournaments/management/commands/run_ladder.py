"""manage.py run_ladder --rounds N: what the beat task does, N times, waiting for each batch (embedded mode).

Each round tops every unpaused ladder (or the --ladder ones) up to its bound of queued matches, then waits until
they are played: by the embedded process pool without a broker, by the Celery workers with one.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.cli import _raise_embedded_errors, make_console
from tournaments.ladders import schedule_ladders
from tournaments.models import Ladder, Match
from tournaments.standings import standings_table

NO_LADDER = ("no unpaused ladder to run: `manage.py demo --no-serve` makes an open one with the built-in bots, or add "
             "one in the admin (/admin/tournaments/ladder/add/) or with POST /api/ladders/, and resume a paused one")


class Command(BaseCommand):
    help = "Make rated matches for the ladders by rating, N rounds, waiting for each round; print the standings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rounds", type=int, default=1, help="batches of matches to make and play (default 1)")
        parser.add_argument("--ladder", type=int, action="append", default=None, help="ladder id (repeatable)")
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for each round")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["rounds"] < 1:
            raise CommandError(f"--rounds must be at least 1, got {opts['rounds']}")
        ladders = Ladder.objects.filter(paused=False)
        if opts["ladder"]:
            missing = set(opts["ladder"]) - set(Ladder.objects.filter(pk__in=opts["ladder"]).values_list("pk",
                                                                                                      flat=True))
            if missing:
                raise CommandError(f"no ladder with id {', '.join(map(str, sorted(missing)))}")
            ladders = ladders.filter(pk__in=opts["ladder"])
        ids = list(ladders.values_list("pk", flat=True))
        if not ids:
            raise CommandError(NO_LADDER)
        console = make_console(self.stdout._out)
        for number in range(1, opts["rounds"] + 1):
            before = Match.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            made = schedule_ladders(ids)
            console.print(f"round {number}: {made} new match(es)")
            wait_for(ids, opts["timeout"], after=before)
        for ladder in Ladder.objects.filter(pk__in=ids).order_by("pk"):
            console.print(standings_table(ladder))


def wait_for(ladder_ids: list[int], timeout_s: float, after: int = 0) -> None:
    deadline = time.monotonic() + timeout_s
    unfinished = [Match.Status.QUEUED, Match.Status.RUNNING]
    # The round's matches: those waiting now. Not what another scheduler (a demo's ladder clock, beat) queues
    # meanwhile, or a ladder that keeps playing would keep this command waiting for ever.
    ours = list(Match.objects.filter(ladder_id__in=ladder_ids, status__in=unfinished, pk__gt=after)
                .values_list("pk", flat=True))
    pending = Match.objects.filter(pk__in=ours, status__in=unfinished)
    while pending.exists():
        _raise_embedded_errors()
        if time.monotonic() > deadline:
            raise CommandError(f"gave up after {timeout_s:.0f}s with {pending.count()} match(es) unfinished")
        time.sleep(0.25)  # a poll interval; the deadline decides
