"""manage.py demo: migrate, register the built-in bots, run a round robin of the default game, print standings,
serve."""

from __future__ import annotations

import itertools
import os
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import BaseCommand, CommandParser
from dotenv import set_key

from engine.bots import bot_names
from engine.registry import default_game, game_names
from tournaments.cli import Entrant, create_and_start, make_console, print_standings, run_to_end
from tournaments.devserver import NoDelayWSGIServer
from tournaments.dispatch import runner
from tournaments.ladder_clock import period, start_clock
from tournaments.ladders import join_ladder
from tournaments.models import Ladder, Tournament

ADMIN_USER = "admin"
ANY_HOST = {"": "127.0.0.1", "0": "127.0.0.1", "0.0.0.0": "127.0.0.1", "[::]": "[::1]"}  # runserver's "all addresses"


def site_url(addrport: str) -> str:
    """The address people open for runserver's addrport ("8131", "0:8131", "127.0.0.1:8131", "[::]:8131")."""
    host, _, port = addrport.rpartition(":")
    return f"http://{ANY_HOST.get(host, host)}:{port}"


def use_site_url(addrport: str) -> str:
    """LUDUS_SITE_URL from the demo's address, unless the environment names one: in this process, in the runner's
    pool (spawned with this environment) and, through var/local.env, in every manage.py run in another shell
    (try_bot, replay show, branch: their links point at this demo, docs/architecture.md#configuration)."""
    if settings.LUDUS_SITE_URL_FROM_ENVIRONMENT:
        return str(settings.LUDUS_SITE_URL)
    url = site_url(addrport)
    os.environ["LUDUS_SITE_URL"] = settings.LUDUS_SITE_URL = url
    local_env = settings.LUDUS_LOCAL_ENV_FILE  # var/local.env, which `make demo` wrote (None: no file, as in tests)
    if local_env is not None and local_env.is_file():
        set_key(local_env, "LUDUS_SITE_URL", url, quote_mode="never")
    return url


def demo_entrants(count: int) -> list[Entrant]:
    """Every engine bot under its own name, then numbered copies ("greedy-2") until there are count entrants."""
    entrants = [Entrant(name=name, builtin=name) for name in bot_names()]
    copy = 2
    while len(entrants) < count:
        for name in bot_names():
            if len(entrants) < count:
                entrants.append(Entrant(name=f"{name}-{copy}", builtin=name))
        copy += 1
    return entrants[:max(count, len(bot_names()))]


def unused_name(base: str) -> str:
    """base, else "base 2", "base 3"...: the first name no tournament has, so a second demo is told from the first."""
    taken = set(Tournament.objects.filter(name__startswith=base).values_list("name", flat=True))
    return next(name for n in itertools.count(1) if (name := base if n == 1 else f"{base} {n}") not in taken)


def demo_ladder(tournament: Tournament) -> Ladder:
    """The demo's bots on an open ladder of two-player matches (authors enter theirs from the bot page); it plays
    while the demo serves (the ladders' clock), or when asked (`run_ladder`)."""
    ladder, _ = Ladder.objects.get_or_create(name=f"demo {tournament.game} ladder",
                                             defaults={"game": tournament.game, "players_per_match": 2,
                                                       "is_open": True})
    join_ladder(ladder, list(tournament.entries.select_related("bot")))
    return ladder


class Command(BaseCommand):
    help = "Set up the database, run a demo tournament between the built-in bots, print standings, serve the UI."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", default=default_game(), help="a registered game: " + ", ".join(game_names()))
        parser.add_argument("--entrants", type=int, default=6, help="bots in the round robin (copies fill up)")
        parser.add_argument("--players", type=int, default=4, help="players per table")
        parser.add_argument("--games", type=int, default=4, help="games per table (seats rotate)")
        parser.add_argument("--seed", type=int, default=2026)
        parser.add_argument("--no-serve", action="store_true", help="exit after printing the standings")
        parser.add_argument("--addrport", default="127.0.0.1:8000")

    def handle(self, *args: Any, **opts: Any) -> None:
        console = make_console(self.stdout._out)
        site = use_site_url(opts["addrport"])
        console.print("[bold]Ludus demo[/bold]: migrating the database…")
        call_command("migrate", interactive=False, verbosity=0)
        entrants = demo_entrants(opts["entrants"])
        fields = {"name": unused_name(f"demo {opts['game']} round robin"), "game": opts["game"],
                  "players_per_table": opts["players"], "games_per_set": opts["games"], "options": {},
                  "seed": opts["seed"]}
        tournament, matches = create_and_start(entrants, fields)
        names = ", ".join(e.name for e in entrants)
        console.print(f"{tournament.name}: a round robin of {len(entrants)} bots ({names}), "
                      f"{opts['players']} per table, {opts['games']} game(s) per table: {len(matches)} matches.")
        run_to_end(tournament, console)
        print_standings(tournament, console)
        console.print(f"Replays: .venv/bin/python manage.py replay show {matches[0].pk}  (verify: replay verify --all)")
        ladder = demo_ladder(tournament)
        runner().stop_embedded()  # started again by the next match: the ladder's, a requeue, an upload's validation
        if opts["no_serve"]:
            console.print(f"The same bots are on the ladder {ladder.name!r} (id {ladder.pk}): "
                          ".venv/bin/python manage.py run_ladder --rounds 10 plays it")
            return
        start_clock()  # beat's part for the ladders: no beat runs without a broker (tournaments/ladder_clock.py)
        console.print(f"Ladder: {site}/ladders/{ladder.pk}/ : the same bots on an open ladder, a round every "
                      f"{period():.0f} s while the demo serves")
        password = self.reset_admin()
        console.print(f"Open {site}/ : standings, matches and replays "
                      f"(this tournament: {site}/tournaments/{tournament.pk}/)")
        console.print(f"Admin: {site}/admin/  user [bold]{ADMIN_USER}[/bold]  "
                      f"password [bold]{password}[/bold] (also logs in to the pages, to upload bots)")
        serve = load_command_class(get_commands()["runserver"], "runserver")  # staticfiles' runserver, as usual
        serve.server_cls = NoDelayWSGIServer  # type: ignore[attr-defined]
        call_command(serve, opts["addrport"], use_reloader=False)

    def reset_admin(self) -> str:
        """A fresh random password each run, printed once; the demo admin is local to this machine."""
        password = secrets.token_urlsafe(12)
        user, _ = get_user_model().objects.get_or_create(username=ADMIN_USER)
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        return password
