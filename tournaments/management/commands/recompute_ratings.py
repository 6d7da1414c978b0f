"""manage.py recompute_ratings [--check]: replay every rated result of a tournament or ladder, in its serial order.

Without --check, the live ratings are rebuilt from the replay (each competition under its row lock, so no result
is recorded meanwhile). With --check nothing is written, and the command exits 1 when any live rating differs.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from tournaments.models import Ladder, Tournament
from tournaments.ratings import rating_differences, rebuild_ratings


class Command(BaseCommand):
    help = ("Recompute ratings from match history and rebuild the live ratings from it; with --check, only compare "
            "(exit 1 if they differ).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tournament", type=int, action="append", default=[], help="tournament id (repeatable)")
        parser.add_argument("--ladder", type=int, action="append", default=[], help="ladder id (repeatable)")
        parser.add_argument("--check", action="store_true", help="compare only; exit 1 if any rating differs")

    def handle(self, *args: Any, **opts: Any) -> None:
        for model, ids in ((Tournament, opts["tournament"]), (Ladder, opts["ladder"])):
            missing = sorted(set(ids) - set(model.objects.filter(pk__in=ids).values_list("pk", flat=True)))
            if missing:
                name = model._meta.verbose_name
                raise CommandError(f"no {name} with id {', '.join(map(str, missing))}: nothing to recompute or check")
        everything = not opts["tournament"] and not opts["ladder"]
        tournaments = list(Tournament.objects.values_list("pk", flat=True)) if everything else opts["tournament"]
        ladders = list(Ladder.objects.values_list("pk", flat=True)) if everything else opts["ladder"]
        targets: list[tuple[str, Q, type[Tournament] | type[Ladder], int]]
        targets = [(f"tournament {pk}", Q(tournament_id=pk), Tournament, pk) for pk in tournaments]
        targets += [(f"ladder {pk}", Q(ladder_id=pk), Ladder, pk) for pk in ladders]
        bad = 0
        for name, competition, model, pk in targets:
            problems = (rating_differences(competition, competition) if opts["check"]
                        else rebuild_ratings(model, pk))
            verdict = "ratings agree with history" if not problems else (
                "DIFFERS" if opts["check"] else f"rebuilt {len(problems)} rating(s) from history")
            self.stdout.write(f"{name}: {verdict}")
            for problem in problems:
                self.stdout.write(f"  {problem}")
            bad += bool(problems)
        if bad and opts["check"]:
            raise CommandError(f"{bad} competition(s) have ratings that differ from their history", returncode=1)
