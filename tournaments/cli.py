"""What the run_tournament and demo commands share: entrant names, validation, running to the end, output."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import InterfaceError, OperationalError, connection, transaction
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from engine import InvalidOptions, load_game
from engine.bots import bot_names, is_bot_name
from tournaments.builtins import ensure_builtin
from tournaments.commandline import first_line
from tournaments.dispatch import dispatch_match, runner, verifying_results
from tournaments.models import Bot, BotVersion, Match, Tournament
from tournaments.scheduling import check_entries, create_tournament, start_tournament
from tournaments.standings import standings_table

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Entrant:
    """An entrant named on the command line: a built-in ("greedy", "greedy-2:greedy") or an upload ("owner/name")."""

    name: str
    builtin: str = ""
    owner: str = ""

    def resolve(self) -> BotVersion:
        if self.builtin:
            return ensure_builtin(self.name, self.builtin)
        version = (BotVersion.objects.filter(bot__owner__username=self.owner, bot__name=self.name,
                                             status=BotVersion.Status.ACTIVE)
                   .select_related("bot").order_by("number").last())
        if version is None:
            raise CommandError(f"bot {self.owner}/{self.name} has no active version")
        return version


def parse_entrants(spec: str) -> list[Entrant]:
    """Raise CommandError naming the first unknown or repeated entrant."""
    entrants = []
    for item in [part.strip() for part in spec.split(",") if part.strip()]:
        if "/" in item:
            owner, _, name = item.partition("/")
            if not Bot.objects.filter(owner__username=owner, name=name).exists():
                raise CommandError(f"unknown bot {item!r}: no bot {name!r} owned by {owner!r}")
            entrants.append(Entrant(name=name, owner=owner))
            continue
        name, _, builtin = item.partition(":")
        builtin = builtin or name
        if not is_bot_name(builtin):
            raise CommandError(
                f"unknown bot {item!r}; built-in bots are {', '.join(bot_names())} (NAME or NEWNAME:BUILTIN), "
                "uploaded bots are owner/name"
            )
        entrants.append(Entrant(name=name, builtin=builtin))
    names = [e.owner + "/" + e.name for e in entrants]
    if len(set(names)) != len(names):
        raise CommandError(f"each bot may enter only once, got {spec!r}; use NEWNAME:BUILTIN for extra built-ins")
    return entrants


# The command's options for the tournament's fields, with the range each field can hold.
OPTIONS = {"games_per_set": "--games", "players_per_table": "--players", "rounds": "--rounds", "best_of": "--best-of",
           "move_ms": "--move-ms", "bank_ms": "--bank-ms", "max_faults": "--max-faults", "seed": "--seed",
           "options": "--options", "name": "--name", "game": "--game", "entries": "--bots"}
SMALL, INT = 32767, 2**31 - 1
OPTION_RANGES = {"games_per_set": ("--games", 1, SMALL), "rounds": ("--rounds", 0, SMALL),
                 "best_of": ("--best-of", 1, SMALL), "move_ms": ("--move-ms", 1, INT),
                 "bank_ms": ("--bank-ms", 0, INT), "max_faults": ("--max-faults", 1, INT)}


def option_errors(exc: ValidationError) -> str:
    """A model's ValidationError as one line naming the command's options (--games, not games_per_set)."""
    if not hasattr(exc, "error_dict"):
        return "; ".join(exc.messages)
    return "; ".join(f"{OPTIONS.get(field, field)}: {message}" if field != "__all__" else message
                     for field, messages in exc.message_dict.items() for message in messages)


def check_fields(fields: dict[str, Any], entrant_count: int) -> None:
    """Every check that needs no database row, so bad input is refused before anything is written."""
    try:
        game = load_game(fields["game"])
        game.check_players(fields["players_per_table"])
        game.validate_options(fields.get("options"))
    except InvalidOptions as exc:
        raise CommandError(str(exc)) from exc
    for field, (option, low, high) in OPTION_RANGES.items():
        if field in fields and not low <= fields[field] <= high:
            raise CommandError(f"{option} must be between {low} and {high}, got {fields[field]}")
    if entrant_count < fields["players_per_table"]:
        raise CommandError(
            f"a table of {fields['players_per_table']} needs at least {fields['players_per_table']} bots, "
            f"got {entrant_count}"
        )


def create_and_start(entrants: Sequence[Entrant], fields: dict[str, Any]) -> tuple[Tournament, list[Match]]:
    """All rows in one transaction: on any error nothing is left behind. Matches are enqueued on commit."""
    check_fields(fields, len(entrants))
    try:
        with transaction.atomic():
            versions = [entrant.resolve() for entrant in entrants]
            tournament = create_tournament(versions, **fields)
            check_entries(tournament, versions)
            matches = start_tournament(tournament)
    except ValidationError as exc:
        raise CommandError(option_errors(exc)) from exc
    return tournament, matches


def make_console(stream: Any) -> Console:
    """A rich console on the command's raw stream (OutputWrapper would add newlines), wide enough off a terminal."""
    console = Console(file=stream)
    return console if console.is_terminal else Console(file=stream, width=120)


def run_to_end(tournament: Tournament, console: Console, timeout_s: float = 3600.0) -> None:
    """Show a progress bar until the tournament is no longer running (later rounds are added as rounds end), or
    waits on failed matches. A database that restarts meanwhile is waited for, up to DATABASE_WAIT_S."""
    total = _poll_database(tournament, tournament.matches.count)
    where = f"Celery workers at {settings.CELERY_BROKER_URL}" if settings.CELERY_BROKER_URL else (
        f"{settings.LUDUS_WORKER_CONCURRENCY} local processes")
    console.print(f"Running {total} matches of {tournament.game} on {where}.")
    deadline = time.monotonic() + timeout_s
    seen = _poll_database(tournament, lambda: set(tournament.matches.values_list("pk", flat=True)))
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("matches", total=total)
        nudged = time.monotonic()
        while True:
            total, done, over = _poll_database(tournament, lambda: _count(tournament))
            progress.update(task, completed=done, total=total)
            if over:
                break
            _dispatch_new_rounds(tournament, seen)
            _raise_embedded_errors()
            nudged = _verify_left_over(tournament, total, done, nudged, seen)
            if time.monotonic() > deadline:
                raise CommandError(f"gave up after {timeout_s:.0f}s with {total - done} match(es) unfinished")
            time.sleep(0.25)
    failed = tournament.matches.filter(status=Match.Status.FAILED)
    for match in failed[:5]:
        console.print(f"[red]match {match.pk} failed:[/red] {match.error.splitlines()[0] if match.error else ''}")
    if failed.exists():
        console.print(f"Tournament {tournament.pk} waits on {failed.count()} failed match(es): requeue them with the "
                      f"admin's action or POST /api/tournaments/{tournament.pk}/requeue-failed/.")


def _count(tournament: Tournament) -> tuple[int, int, bool]:
    """Matches in all, matches done, and whether waiting is over (no longer running, or waiting on failed ones)."""
    total = tournament.matches.count()
    done = tournament.matches.exclude(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).count()
    running = Tournament.objects.filter(pk=tournament.pk, state=Tournament.State.RUNNING).exists()
    stuck = tournament.matches.filter(status=Match.Status.FAILED).exists()
    return total, done, done >= total and (not running or stuck)


DATABASE_WAIT_S = 60.0


def _poll_database(tournament: Tournament, query: Callable[[], T]) -> T:
    """Run a read-only query; while the database is unreachable (restarting), reconnect and try again for up to
    DATABASE_WAIT_S, then give up with one line. The tournament itself lives on in the database."""
    deadline = time.monotonic() + DATABASE_WAIT_S
    while True:
        try:
            return query()
        except (OperationalError, InterfaceError) as exc:
            connection.close()
            if time.monotonic() > deadline:
                raise CommandError(
                    f"lost the database for {DATABASE_WAIT_S:.0f}s ({first_line(exc)}); tournament {tournament.pk} "
                    f"keeps its matches and results: see `manage.py standings --tournament {tournament.pk}`"
                ) from exc
            time.sleep(1.0)


def _dispatch_new_rounds(tournament: Tournament, seen: set[int]) -> None:
    """Embedded mode: a round scheduled inside a pool child is not dispatched from there; send it from here."""
    if settings.CELERY_BROKER_URL:
        return
    for match_id in tournament.matches.filter(status=Match.Status.QUEUED).exclude(pk__in=seen).values_list(
            "pk", flat=True):
        seen.add(match_id)
        dispatch_match(match_id)


VERIFY_NUDGE_S = 5.0


def _verify_left_over(tournament: Tournament, total: int, done: int, nudged: float, seen: set[int]) -> float:
    """Embedded mode: every match played, and the tournament still running, waits on replays still verifying
    (tournaments/advancement.py). A pool child verifies after each match, and sweeps; with no match left to play,
    one whose verification did not happen (its child stopped, the store did not answer) is verified here, every
    VERIFY_NUDGE_S, as beat's sweep would. A round that this moves on is sent to the pool from here, on commit:
    its matches join seen (_dispatch_new_rounds sends the others). Returns when it last looked."""
    now = time.monotonic()
    if settings.CELERY_BROKER_URL or done < total or now - nudged < VERIFY_NUDGE_S:
        return nudged
    try:
        for match_id in verifying_results(tournament.matches.filter(status=Match.Status.FINISHED)):
            runner().send_verification(match_id)
        seen.update(tournament.matches.values_list("pk", flat=True))
    except Exception:  # what is not the game's (replays.verification.not_the_game): tried again at the next nudge
        logger.exception("verifying tournament %s's replays failed; trying again in %.0f s", tournament.pk,
                         VERIFY_NUDGE_S)  # a database that restarts: the next poll (_poll_database) waits for it
    return now


def _raise_embedded_errors() -> None:
    if settings.CELERY_BROKER_URL:
        return
    problems = runner().embedded_errors()
    if problems:
        raise CommandError(f"the embedded runner crashed: {problems[0]!r}")


def print_standings(tournament: Tournament, console: Console) -> None:
    tournament.refresh_from_db()
    console.print(standings_table(tournament))
