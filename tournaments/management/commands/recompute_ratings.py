"""manage.py recompute_ratings [--check]: replay every rated result of a tournament or ladder, in its serial order,
and recount its standings rows from its finished seats.

Without --check, the live ratings and standings rows are rebuilt from the replay (each competition under its row
lock, so no result is recorded meanwhile). With --check nothing is written, and the command exits 1 when any live
rating or standings row differs.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from tournaments.models import Ladder, Tournament
from tournaments.ratings import rating_differences, rebuild_ratings
from tournaments.standings import rebuild_standings, standings_differences


class Command(BaseCommand):
    help = ("Recompute ratings and standings rows from match history and rebuild the live ones from it; with --check, "
            "only compare (exit 1 if they differ).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tournament", type=int, action="append", default=[], help="tournament id (repeatable)")
        parser.add_argument("--ladder", type=int, action="append", default=[], help="ladder id (repeatable)")
        parser.add_argument("--check", action="store_true",
                            help="compare only; exit 1 if any rating or standings row differs")

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
            ratings = (rating_differences(competition, competition) if opts["check"]
                       else rebuild_ratings(model, pk))
            row = model.objects.get(pk=pk)
            standings = standings_differences(row) if opts["check"] else rebuild_standings(row)
            problems = ratings + standings
            verdict = "ratings agree with history, and standings rows" if not problems else (
                "DIFFERS" if opts["check"] else f"rebuilt {len(ratings)} rating(s) from history and "
                                                f"{len(standings)} standings difference(s) from its seats")
            self.stdout.write(f"{name}: {verdict}")
            for problem in problems:
                self.stdout.write(f"  {problem}")
            bad += bool(problems)
        if bad and opts["check"]:
            raise CommandError(f"{bad} competition(s) have ratings or standings that differ from their history",
                               returncode=1)
