"""manage.py test_versions NEW BASE: is NEW better than BASE? A version test (docs/version-tests.md) on duplicate
deals, stopped by an SPRT, started as a user (default: the system user, who may use public versions and the built-in
bots). With --wait it follows the test to its verdict: the workers play its games when a broker is configured (this
command then advances it as beat would); without one, this process plays them, as try_bot does.
`manage.py test_versions --show ID` prints a test."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine.bots import is_bot_name
from replays.version_test_measures import advance
from tournaments.builtins import ensure_builtin, system_user
from tournaments.dispatch import runner
from tournaments.models import Match, VersionTest
from tournaments.numbers import is_whole
from tournaments.version_tests import TestRefused, TestRequest, start_test

POLL_SECONDS = 1.0


class Command(BaseCommand):
    help = "Start a version test of NEW against BASE (version ids or built-in bots) and, with --wait, follow it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("new", nargs="?", help="a bot version id or a built-in bot (greedy, greedy_eps50, ...)")
        parser.add_argument("base", nargs="?", help="the version to beat, likewise")
        parser.add_argument("--show", type=int, metavar="ID", help="print test ID and stop")
        parser.add_argument("--game", help="the game (needed when both are built-in)")
        parser.add_argument("--players", type=int)
        parser.add_argument("--field", default="", help="the other seats: built-ins or version ids, comma-separated")
        parser.add_argument("--d0", type=float, default=0.0)
        parser.add_argument("--d1", type=float, default=0.05)
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument("--beta", type=float, default=0.05)
        parser.add_argument("--max-games", type=int, default=2000)
        parser.add_argument("--batch", type=int, default=4, help="deals per batch (two games each)")
        parser.add_argument("--user", help="start it as this user (default: the system user)")
        parser.add_argument("--wait", action="store_true", help="follow it to its verdict")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds --wait waits (default 3600)")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["show"] is not None:
            test = VersionTest.objects.filter(pk=opts["show"]).first()
            if test is None:
                raise CommandError(f"no version test {opts['show']}")
            self.print_test(test)
            return
        if not opts["new"] or not opts["base"]:
            raise CommandError("give NEW and BASE (or --show ID)")
        test = self.start(opts)
        self.stdout.write(f"test {test.pk} started: {test.new.label} against {test.base.label} in {test.game} "
                          f"({test.players} players); {settings.LUDUS_SITE_URL}/tests/{test.pk}/")
        if opts["wait"]:
            test = self.follow(test, opts["timeout"])
            self.print_test(test)

    def start(self, opts: dict[str, Any]) -> VersionTest:
        user = self.user(opts["user"])
        field = [name.strip() for name in opts["field"].split(",") if name.strip()]
        request = TestRequest(new=self.version_id(opts["new"]), base=self.version_id(opts["base"]),
                              game=opts["game"], players=opts["players"], field=field, d0=opts["d0"],
                              d1=opts["d1"], alpha=opts["alpha"], beta=opts["beta"], max_games=opts["max_games"],
                              batch_deals=opts["batch"])
        try:
            return start_test(user, request)
        except TestRefused as exc:
            raise CommandError(f"{exc.field}: {exc}") from exc

    def user(self, name: str | None) -> Any:
        if name is None:
            return system_user()
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise CommandError(f"no user {name!r}")
        return user

    def version_id(self, ref: str) -> int:
        if is_whole(ref):
            return int(ref)
        if is_bot_name(ref):
            return ensure_builtin(ref).pk
        raise CommandError(f"{ref!r} is neither a bot version id nor a built-in bot")

    def follow(self, test: VersionTest, timeout_s: float) -> VersionTest:
        deadline, shown = time.monotonic() + timeout_s, -1
        while True:
            if not settings.CELERY_BROKER_URL:  # no workers: play the queued games here
                for match_id in Match.objects.filter(version_test_game__test=test, status=Match.Status.QUEUED) \
                        .values_list("pk", flat=True):
                    runner().run_match_here(match_id)
            advance(test.pk)
            test.refresh_from_db()
            if test.games_played != shown:
                shown = test.games_played
                lower, upper = test.results["bounds"]
                self.stdout.write(f"  {test.games_played} games: LLR {test.llr:.3f} in [{lower:.3f}, {upper:.3f}]")
            if not test.is_running():
                return test
            if time.monotonic() > deadline:
                raise CommandError(f"test {test.pk} is still running after {timeout_s:.0f} s")
            time.sleep(POLL_SECONDS)  # a poll interval: the deadline decides

    def print_test(self, test: VersionTest) -> None:
        results, lower_upper = test.results, test.results["bounds"]
        self.stdout.write(f"test {test.pk}: {test.new.label} against {test.base.label}: {test.status}")
        self.stdout.write(f"  LLR {test.llr:.3f} in [{lower_upper[0]:.3f}, {lower_upper[1]:.3f}]; H0 lead {test.d0}, "
                          f"H1 lead {test.d1}, alpha {test.alpha}, beta {test.beta}")
        self.stdout.write(f"  games {test.games_played} ({len(results['deals'])} deals, {len(results['void'])} void), "
                          f"CPU {test.cpu_ms} ms")
        for name in ("score", "win_rate"):
            estimate = results.get(name)
            shown = (f"{estimate['mean']:+.3f} [{estimate['low']:+.3f}, {estimate['high']:+.3f}]" if estimate
                     else "none yet")
            self.stdout.write(f"  {name.replace('_', '-')} lead of new (95 %): {shown}")
        for key in ("new", "base"):
            row = results["versions"][key]
            self.stdout.write(f"  {key}: {row['games']} games, {row['wins']} wins, {row['faults']} faults, "
                              f"{row['timeouts']} timeouts, {row['forfeits']} forfeits, {row['cpu_ms']} ms CPU")
        if not test.is_running():
            self.stdout.write(f"  seed {test.seed}; ended {test.finished_at:%Y-%m-%d %H:%M:%S} UTC")
