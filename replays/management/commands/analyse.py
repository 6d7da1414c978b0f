"""manage.py analyse MATCH [--seat N] [--games G] [--bot BOT] (docs/analysis.md): analyse a seat of a finished match
move by move on the workers (or `--here`, in this process), wait, and print the marks and the biggest losses.

The command is the machine's operator, so it has staff's rights; `--as USER` checks that user's instead.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from replays.analysis import DEFAULT_GAMES
from replays.analysis_jobs import (
    AnalysisForbidden,
    AnalysisRefused,
    AnalysisRequest,
    biggest_losses,
    request_analysis,
    run_to_end,
    summary,
)
from replays.links import viewer_url
from replays.management.commands.branch import OPERATOR
from replays.models import Analysis
from tournaments.dispatch import runner
from tournaments.models import Match

DONE = (Analysis.Status.FINISHED, Analysis.Status.FAILED)


class Command(BaseCommand):
    help = "Analyse a seat of a finished match move by move: each option played out, each decision marked."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("match", type=int, help="the finished match to analyse")
        parser.add_argument("--seat", type=int, default=1, help="the seat to analyse, counted from 1 (default 1)")
        parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                            help=f"playouts per option (default {DEFAULT_GAMES})")
        parser.add_argument("--bot", default="greedy", help="the built-in bot that plays the playouts (greedy)")
        parser.add_argument("--as", dest="username", default=None, help="analyse with this user's rights")
        parser.add_argument("--here", action="store_true", help="run the analysis in this process, not the workers")
        parser.add_argument("--no-wait", action="store_true", help="queue the analysis and return")
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the analysis")

    def handle(self, *args: Any, **opts: Any) -> None:
        match = Match.objects.filter(pk=opts["match"]).first()
        if match is None:
            raise CommandError(f"no match {opts['match']}")
        user: Any = OPERATOR
        if opts["username"] is not None:
            user = get_user_model().objects.filter(username=opts["username"]).first()
            if user is None:
                raise CommandError(f"--as: no user {opts['username']!r}")
        try:
            row = request_analysis(match, user, AnalysisRequest(seat=opts["seat"], bot=opts["bot"],
                                                                games=opts["games"]))
        except AnalysisRefused as exc:
            raise CommandError(f"--{exc.field}: {exc}" if exc.field != "match" else str(exc)) from exc
        except AnalysisForbidden as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"analysis {row.pk} of match {match.pk}, seat {row.seat + 1}, by {row.bot}, {row.games} "
                          f"games per option: {row.total} decisions, {row.status}")
        if opts["no_wait"]:
            return
        if opts["here"]:
            run_to_end(row.pk)
        else:
            self.wait(row.pk, opts["timeout"])
        self.report(Analysis.objects.get(pk=row.pk))

    def wait(self, pk: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while Analysis.objects.filter(pk=pk).exclude(status__in=DONE).exists():
            if not settings.CELERY_BROKER_URL and (problems := runner().embedded_errors()):
                raise CommandError(f"the embedded runner crashed: {problems[0]!r}")
            if time.monotonic() > deadline:
                raise CommandError(f"gave up after {timeout_s:.0f}s; analysis {pk} goes on on the workers")
            time.sleep(0.5)

    def report(self, row: Analysis) -> None:
        if row.status == Analysis.Status.FAILED:
            raise CommandError(f"analysis {row.pk} failed: {row.error}")
        said = summary(row)
        marks = ", ".join(f"{count} {name}{'s' if count != 1 else ''}" for name, count in said["marks"].items())
        self.stdout.write(f"seat {row.seat + 1}: {said['done']} decisions analysed: {marks}; "
                          f"{said['decisions_per_minute']} decisions per worker minute")
        for entry in biggest_losses(row):
            loss = entry["loss"]
            self.stdout.write(
                f"  step {entry['step']} ({entry['kind']}): {entry['mark']}: played option {entry['played']}, best "
                f"{entry['best']}; gave up {loss['score']['loss']:.1f} points (±{loss['score']['se']:.1f}) and "
                f"{loss['wins']['loss']:.0%} of wins; {viewer_url(row.match_id)}#step={entry['step']}")
