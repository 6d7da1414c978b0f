"""manage.py try_bot PATH --game GAME: play a bot file against the built-in bots, exactly as production would.

No upload needed. The bot runs through the same checks, sandbox, protocol, runner and replay verification as a
ladder match. So that the replays can be opened later (`manage.py replay show ID`), the games are kept as an
unrated try-out: a retired version owned by the `tryout` user, in the paused `try_bot <game>` ladder. Try-out
matches are unrated, so they never touch a rating, and a retired version never enters a competition.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from engine import InvalidOptions, load_game
from engine.bots import bot_names
from replays.links import step_of, viewer_url
from replays.verify import initial_state, step
from tournaments.bot_lifecycle import TRYOUT_USER, BadUpload, upload_limits
from tournaments.builtins import ensure_builtin
from tournaments.dispatch import runner
from tournaments.models import Bot, BotVersion, Ladder, Match
from tournaments.new_matches import create_match
from tournaments.system_ladders import TRYOUT_LADDER, system_ladder
from tournaments.uploads import CheckedUpload, check_upload, zip_folder

NO_CLOCK_MS = 3_600_000  # --no-clock: an hour per decision, for stepping through a bot in a debugger


class Command(BaseCommand):
    help = ("Try a bot file (.py, or .zip with main.py) against the built-in bots in the real sandbox; print each "
            "game's result, every fault and the bot's stderr, and keep the replays (unrated).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the bot: a .py file, a .zip with main.py, or a bot's folder or .zip with "
                                         "its ludus.toml (any language: docs/bots.md, \"Languages\")")
        parser.add_argument("--game", required=True)
        parser.add_argument("--against", default="greedy,random", help=f"built-in bots, from {', '.join(bot_names())}")
        parser.add_argument("--games", type=int, default=1, help="games to play; your seat rotates (default 1)")
        parser.add_argument("--players", type=int, default=None, help="players per game (default: you + --against)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--no-clock", action="store_true", help="no time limit worth the name (1 h per move)")

    def handle(self, *args: Any, **opts: Any) -> None:
        checked = self.check_file(opts["path"])
        against = parse_against(opts["against"])
        players = self.check_table(opts["game"], opts["players"] or len(against) + 1, opts["games"])
        move_ms, bank_ms = (NO_CLOCK_MS, 0) if opts["no_clock"] else (settings.LUDUS_MOVE_MS, settings.LUDUS_BANK_MS)
        matches = create_tryout(checked, opts["game"], players, against, opts["games"], opts["seed"],
                                move_ms, bank_ms)
        for index, match in enumerate(matches, 1):
            self.stdout.write(f"game {index} of {len(matches)}: match {match.pk}, seed {match.seed}...")
            outcome = runner().run_match_here(match.pk)
            self.print_match(Match.objects.get(pk=match.pk), outcome)
        ids = " ".join(str(m.pk) for m in matches)
        self.stdout.write(f"replays: match {ids} (open one with `.venv/bin/python manage.py replay show ID`)")

    def check_file(self, path: str) -> CheckedUpload:
        file = Path(path)
        if not file.is_file() and not file.is_dir():
            raise CommandError(f"{path}: no such file or folder")
        try:
            name, data = (f"{file.resolve().name}.zip", zip_folder(file)) if file.is_dir() else (file.name,
                                                                                                 file.read_bytes())
            checked = check_upload(name, data, upload_limits())
        except BadUpload as exc:
            raise CommandError(str(exc)) from exc
        if not checked.compiles():
            raise CommandError(checked.rejection_log().rstrip("\n"))
        return checked

    def check_table(self, game_name: str, players: int, games: int) -> int:
        try:
            load_game(game_name).check_players(players)
        except InvalidOptions as exc:
            raise CommandError(str(exc)) from exc
        if games < 1:
            raise CommandError(f"--games must be at least 1, got {games}")
        return players

    # --- output --------------------------------------------------------------------------------------------------

    def print_match(self, match: Match, outcome: str) -> None:
        if match.status != Match.Status.FINISHED:
            self.stdout.write(f"  the match did not finish ({outcome}): {match.error.strip() or match.status}")
            return
        seats = list(match.seats.select_related("bot_version__bot").order_by("number"))
        for seat in seats:
            you = seat.bot_version.bot.owner.get_username() == TRYOUT_USER
            label = "your bot" if you else seat.bot_version.bot.name
            forfeit = ", forfeited" if seat.forfeited else ""
            self.stdout.write(f"  seat {seat.number}: {label:<12} rank {seat.rank}  score {seat.score}  "
                              f"faults {seat.faults}{forfeit}")
        candidate = next(s for s in seats if s.bot_version.bot.owner.get_username() == TRYOUT_USER)
        self.print_faults(match, candidate.number)
        self.stdout.write("  your bot's stderr:")
        for line in (candidate.log.rstrip("\n") or "(empty)").splitlines():
            self.stdout.write(f"    {line}")

    def print_faults(self, match: Match, seat: int) -> None:
        faults = fault_lines(match.replay.document(), seat, match.pk)
        self.stdout.write(f"  your bot's faults: {len(faults) // 2 or 'none'}")
        for line in faults:
            self.stdout.write(f"    {line}")
        self.stdout.write(f"  watch it: {viewer_url(match.pk, view=seat)}")


def parse_against(spec: str) -> list[str]:
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in bot_names()]
    if not names or unknown:
        raise CommandError(f"--against takes built-in bots ({', '.join(bot_names())}), got {spec!r}")
    return names


def fault_lines(document: dict[str, Any], seat: int, match_id: int) -> list[str]:
    """'step 12 (feed): timeout, took 1003 ms; played option 0' and the viewer URL of that step in the seat's view
    (steps numbered as everywhere: replays.links)."""
    state = initial_state(document["header"])
    lines = []
    for index, action in enumerate(document["actions"]):
        decision = state.decision()
        if action.get("fault") and action["seat"] == seat and decision is not None:
            lines.append(f"step {step_of(index)} ({decision.kind}): {action['fault']}, took {action.get('ms', 0)} ms; "
                         f"played the default, option {action['choice']}")
            lines.append(f"  {viewer_url(match_id, step_of(index), seat)}")
        step(state, index, action)
    return lines


# --- the try-out records --------------------------------------------------------------------------------------------


def tryout_user() -> Any:
    user, created = get_user_model().objects.get_or_create(username=TRYOUT_USER)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def tryout_version(checked: CheckedUpload, game: str) -> BotVersion:
    """One retired version per distinct file and game: never validated, never entered anywhere."""
    stem = re.sub(r"[^a-z0-9_-]+", "-", Path(checked.filename).stem.lower()).strip("-")[:40] or "bot"
    bot, _ = Bot.objects.get_or_create(owner=tryout_user(), name=f"{stem}-{checked.sha256[:12]}-{game}"[:64],
                                       defaults={"game": game, "visibility": Bot.Visibility.PRIVATE,
                                                 "description": "try_bot: an unrated try-out"})
    version = bot.versions.filter(sha256=checked.sha256).first()
    return version or BotVersion.objects.create(
        bot=bot, number=1, source=checked.data, filename=checked.filename, status=BotVersion.Status.RETIRED,
        language=checked.manifest.language,
        validation_log="try-out of manage.py try_bot: never validated, never in a competition",
    )


def tryout_ladder(game: str, players: int) -> Ladder:
    """The system's paused "try_bot <game>" ladder: internal, never a public ladder page (tournaments.pages.unrated)."""
    return system_ladder(TRYOUT_LADDER, game, players, "try_bot matches only; unrated")


def opponents_for(against: list[str], count: int) -> list[BotVersion]:
    """count built-in entrants cycling through against; repeats play as greedy-2 and so on."""
    versions: list[BotVersion] = []
    seen: dict[str, int] = {}
    for i in range(count):
        engine_bot = against[i % len(against)]
        seen[engine_bot] = seen.get(engine_bot, 0) + 1
        name = engine_bot if seen[engine_bot] == 1 else f"{engine_bot}-{seen[engine_bot]}"
        versions.append(ensure_builtin(name, engine_bot))
    return versions


@transaction.atomic
def create_tryout(checked: CheckedUpload, game: str, players: int, against: list[str], games: int, seed: int,
                  move_ms: int, bank_ms: int) -> list[Match]:
    """The unrated matches, queued but not enqueued: this command runs them itself. Your seat rotates."""
    version = tryout_version(checked, game)
    ladder = tryout_ladder(game, players)
    others = opponents_for(against, players - 1)
    matches = []
    for index in range(games):
        table = list(others)
        table.insert(index % players, version)
        matches.append(create_match(ladder, table, seed + index, rated=False, options={}, move_ms=move_ms,
                                    bank_ms=bank_ms, max_faults=settings.LUDUS_MAX_FAULTS))
    return matches
