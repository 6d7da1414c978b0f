"""manage.py recompute_ratings: replay every rated result of a tournament or ladder and compare with live ratings."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from tournaments.models import Ladder, Tournament
from tournaments.ratings import rating_differences


class Command(BaseCommand):
    help = "Recompute ratings from match history and check them against the live ratings (exit 1 if they differ)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tournament", type=int, action="append", default=[], help="tournament id (repeatable)")
        parser.add_argument("--ladder", type=int, action="append", default=[], help="ladder id (repeatable)")

    def handle(self, *args: Any, **opts: Any) -> None:
        everything = not opts["tournament"] and not opts["ladder"]
        tournaments = list(Tournament.objects.values_list("pk", flat=True)) if everything else opts["tournament"]
        ladders = list(Ladder.objects.values_list("pk", flat=True)) if everything else opts["ladder"]
        targets = [(f"tournament {pk}", Q(tournament_id=pk)) for pk in tournaments]
        targets += [(f"ladder {pk}", Q(ladder_id=pk)) for pk in ladders]
        bad = 0
        for name, competition in targets:
            problems = rating_differences(competition, competition)
            self.stdout.write(f"{name}: " + ("ratings agree with history" if not problems else "DIFFERS"))
            for problem in problems:
                self.stdout.write(f"  {problem}")
            bad += bool(problems)
        if bad:
            raise CommandError(f"{bad} competition(s) have ratings that differ from their history", returncode=1)
