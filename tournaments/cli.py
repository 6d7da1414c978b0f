"""What the run_tournament and demo commands share: entrant names, validation, running to the end, output."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from engine import InvalidOptions, load_game
from engine.bots import bot_names, is_bot_name
from tournaments.builtins import ensure_builtin
from tournaments.dispatch import runner
from tournaments.models import Bot, BotVersion, Match, Tournament
from tournaments.scheduling import check_entries, create_tournament, start_tournament
from tournaments.standings import standings_table


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


def check_fields(fields: dict[str, Any], entrant_count: int) -> None:
    """Every check that needs no database row, so bad input is refused before anything is written."""
    try:
        game = load_game(fields["game"])
        game.check_players(fields["players_per_table"])
        game.validate_options(fields.get("options"))
    except InvalidOptions as exc:
        raise CommandError(str(exc)) from exc
    if fields["games_per_set"] < 1:
        raise CommandError(f"--games must be at least 1, got {fields['games_per_set']}")
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
        raise CommandError("; ".join(exc.messages)) from exc
    return tournament, matches


def make_console(stream: Any) -> Console:
    """A rich console on the command's raw stream (OutputWrapper would add newlines), wide enough off a terminal."""
    console = Console(file=stream)
    return console if console.is_terminal else Console(file=stream, width=120)


def run_to_end(tournament: Tournament, console: Console, timeout_s: float = 3600.0) -> None:
    """Show a progress bar until the tournament is no longer running (later rounds are added as rounds end)."""
    total = tournament.matches.count()
    where = f"Celery workers at {settings.CELERY_BROKER_URL}" if settings.CELERY_BROKER_URL else (
        f"{settings.LUDUS_WORKER_CONCURRENCY} local processes")
    console.print(f"Running {total} matches of {tournament.game} on {where}.")
    deadline = time.monotonic() + timeout_s
    seen = set(tournament.matches.values_list("pk", flat=True))
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("matches", total=total)
        while True:
            total = tournament.matches.count()
            done = tournament.matches.exclude(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).count()
            progress.update(task, completed=done, total=total)
            if done >= total and not Tournament.objects.filter(pk=tournament.pk,
                                                              state=Tournament.State.RUNNING).exists():
                break
            _dispatch_new_rounds(tournament, seen)
            _raise_embedded_errors()
            if time.monotonic() > deadline:
                raise CommandError(f"gave up after {timeout_s:.0f}s with {total - done} match(es) unfinished")
            time.sleep(0.25)
    failed = tournament.matches.filter(status=Match.Status.FAILED)
    for match in failed[:5]:
        console.print(f"[red]match {match.pk} failed:[/red] {match.error.splitlines()[0] if match.error else ''}")


def _dispatch_new_rounds(tournament: Tournament, seen: set[int]) -> None:
    """Embedded mode: a round scheduled inside a pool child is not dispatched from there; send it from here."""
    if settings.CELERY_BROKER_URL:
        return
    from tournaments.services import dispatch_match

    for match_id in tournament.matches.filter(status=Match.Status.QUEUED).exclude(pk__in=seen).values_list(
            "pk", flat=True):
        seen.add(match_id)
        dispatch_match(match_id)


def _raise_embedded_errors() -> None:
    if settings.CELERY_BROKER_URL:
        return
    problems = runner().embedded_errors()
    if problems:
        raise CommandError(f"the embedded runner crashed: {problems[0]!r}")


def print_standings(tournament: Tournament, console: Console) -> None:
    tournament.refresh_from_db()
    console.print(standings_table(tournament))
