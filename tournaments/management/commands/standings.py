"""manage.py standings (--tournament ID | --ladder ID) [--json]: print a competition's standings."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.cli import make_console
from tournaments.models import Ladder, Tournament
from tournaments.standings import standings_data, standings_table


class Command(BaseCommand):
    help = "Print the standings of a tournament or a ladder: points, rating (provisional *), wins by seat."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--tournament", type=int, help="tournament id")
        which.add_argument("--ladder", type=int, help="ladder id")
        parser.add_argument("--json", action="store_true", help="the plain data (with head-to-head and rounds)")

    def handle(self, *args: Any, **opts: Any) -> None:
        model, pk = (Tournament, opts["tournament"]) if opts["tournament"] is not None else (Ladder, opts["ladder"])
        competition = model.objects.filter(pk=pk).first()
        if competition is None:
            raise CommandError(f"no {model.__name__.lower()} with id {pk}")
        if opts["json"]:
            self.stdout.write(json.dumps(standings_data(competition), indent=2))
            return
        make_console(self.stdout._out).print(standings_table(competition))
