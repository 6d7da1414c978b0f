"""manage.py branch MATCH --step K [--seat N=BOT ...] [--force OPTION] [--games G] [--resample] [--seed S]
(docs/branches.md): queue branches of a finished match on the workers, wait for them, print their scores beside the
parent's.

The command is the machine's operator, so it has staff's rights; `--as USER` checks that user's instead (what the
API would answer them).
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from replays.branch_batches import batch_of, lines
from replays.branches import BranchForbidden, BranchRefused, BranchRequest, create_branches, describe
from replays.links import viewer_url
from tournaments.dispatch import runner
from tournaments.models import Match
from tournaments.numbers import is_whole

OPERATOR = SimpleNamespace(is_authenticated=True, is_staff=True, pk=None)
DONE = (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)


class Command(BaseCommand):
    help = "Branch a finished match at a step: other bots, a forced option, or re-dealt hidden futures (unrated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("match", type=int, help="the finished match to branch")
        parser.add_argument("--step", type=int, required=True,
                            help="keep the parent's first K steps and play on (0: from the start)")
        parser.add_argument("--seat", action="append", default=[], metavar="N=BOT",
                            help="seat N (counted from 1, as on the pages) takes a built-in bot (greedy, random) "
                                 "or a bot version id; repeatable")
        parser.add_argument("--force", type=int, default=None, metavar="OPTION",
                            help="keep K - 1 steps and play this option (an index into step K's options) as step K")
        parser.add_argument("--games", type=int, default=1, help="games to play (more than 1 needs --resample)")
        parser.add_argument("--resample", action="store_true", help="re-deal what no seat has seen, per game")
        parser.add_argument("--seed", type=int, default=None, help="the seed the resampled futures derive from")
        parser.add_argument("--as", dest="username", default=None, help="branch with this user's rights")
        parser.add_argument("--no-wait", action="store_true", help="queue the branches and return")
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the branches")

    def handle(self, *args: Any, **opts: Any) -> None:
        parent = Match.objects.filter(pk=opts["match"]).first()
        if parent is None:
            raise CommandError(f"no match {opts['match']}")
        request = BranchRequest(step=opts["step"], seats=parse_seats(opts["seat"]), force=opts["force"],
                                games=opts["games"], resample=opts["resample"], seed=opts["seed"])
        try:
            user = self.user(opts["username"])
            branches = create_branches(parent, user, request)
        except BranchRefused as exc:
            flag = {"seats": "seat"}.get(exc.field, exc.field)
            raise CommandError(f"--{flag}: {exc}" if exc.field != "match" else str(exc)) from exc
        except BranchForbidden as exc:
            raise CommandError(str(exc)) from exc
        for match in branches:
            said = describe(user, match).replace(", resampled", f", resampled with seed {match.branch_resample}")
            self.stdout.write(f"branch match {match.pk} of match {parent.pk} {said}: queued; {viewer_url(match.pk)}")
        if not opts["no_wait"]:
            self.wait([m.pk for m in branches], opts["timeout"])
            self.print_results(parent, [m.pk for m in branches])

    def user(self, username: str | None) -> Any:
        if username is None:
            return OPERATOR
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"--as: no user {username!r}")
        return user

    def wait(self, ids: list[int], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while Match.objects.filter(pk__in=ids).exclude(status__in=DONE).exists():
            if not settings.CELERY_BROKER_URL and (problems := runner().embedded_errors()):
                raise CommandError(f"the embedded runner crashed: {problems[0]!r}")
            if time.monotonic() > deadline:
                raise CommandError(f"gave up after {timeout_s:.0f}s; the branches stay queued: {ids}")
            time.sleep(0.25)

    def print_results(self, parent: Match, ids: list[int]) -> None:
        self.stdout.write(f"parent match {parent.pk}: scores {scores(parent)}")
        for match in Match.objects.filter(pk__in=ids).order_by("pk"):
            detail = f"scores {scores(match)}" if match.status == Match.Status.FINISHED else match.error[:200]
            self.stdout.write(f"branch match {match.pk}: {match.status}, {detail}")
        batch = batch_of(Match.objects.get(pk=ids[0]))
        if batch is not None:
            self.stdout.write("\n".join(lines(batch)))


def scores(match: Match) -> list[int | None]:
    return list(match.seats.order_by("number").values_list("score", flat=True))


def parse_seats(specs: list[str]) -> dict[int, str]:
    """["1=greedy", "0=42"] -> {1: "greedy", 0: "42"}; one clear error for anything else."""
    seats = {}
    for spec in specs:
        number, _, bot = spec.partition("=")
        if not is_whole(number.strip()) or not bot.strip():
            raise CommandError(f"--seat takes N=BOT (a seat number, a built-in bot or a bot version id), got {spec!r}")
        seats[int(number)] = bot.strip()
    return seats
