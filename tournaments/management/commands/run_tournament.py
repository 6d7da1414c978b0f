"""manage.py run_tournament: create a tournament (round robin, Swiss or single elimination), run it, print standings."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from engine.registry import game_names
from tournaments.cli import create_and_start, make_console, parse_entrants, print_standings, run_to_end
from tournaments.dberrors import database_trouble


class Command(BaseCommand):
    help = ("Create a tournament between bots (round robin by default; --format swiss or single_elimination), run "
            "it to the end and print the standings.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, help="a registered game: " + ", ".join(game_names()))
        parser.add_argument("--bots", required=True,
                            help="comma-separated entrants: built-ins (greedy, random, or NEWNAME:BUILTIN such as "
                                 "greedy-2:greedy) and uploaded bots as owner/name")
        parser.add_argument("--games", type=int, default=1, help="games per table (a set; seats rotate each game)")
        parser.add_argument("--players", type=int, required=True, help="players per table")
        parser.add_argument("--format", default="round_robin", choices=["round_robin", "swiss", "single_elimination"])
        parser.add_argument("--rounds", type=int, default=0, help="Swiss: rounds (default: ceil(log2(bots)))")
        parser.add_argument("--best-of", type=int, default=1, help="single elimination: sets per table (odd)")
        parser.add_argument("--options", default="{}", help="game options as a JSON object")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--name", default="", help="tournament name (default: derived from the game)")
        parser.add_argument("--move-ms", type=int, default=settings.LUDUS_MOVE_MS)
        parser.add_argument("--bank-ms", type=int, default=settings.LUDUS_BANK_MS)
        parser.add_argument("--max-faults", type=int, default=settings.LUDUS_MAX_FAULTS)
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the matches")

    def handle(self, *args: Any, **opts: Any) -> None:
        console = make_console(self.stdout._out)
        try:
            options = json.loads(opts["options"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from exc
        if not isinstance(options, dict):
            raise CommandError(f"--options must be a JSON object, got {opts['options']!r}")
        entrants = parse_entrants(opts["bots"])
        fields = {
            "name": opts["name"] or f"{opts['game']} {opts['format'].replace('_', ' ')}",
            "format": opts["format"], "rounds": opts["rounds"], "best_of": opts["best_of"],
            "game": opts["game"], "players_per_table": opts["players"], "games_per_set": opts["games"],
            "options": options, "seed": opts["seed"], "move_ms": opts["move_ms"], "bank_ms": opts["bank_ms"],
            "max_faults": opts["max_faults"],
        }
        try:
            tournament, matches = create_and_start(entrants, fields)  # one transaction: all of it, or nothing
            console.print(f"Tournament {tournament.pk}: {len(entrants)} bots, {len(matches)} matches.")
            run_to_end(tournament, console, opts["timeout"])
            print_standings(tournament, console)
        except DatabaseError as exc:
            raise CommandError(database_trouble(exc)) from exc
