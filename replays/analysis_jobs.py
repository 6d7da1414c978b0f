"""Analyses as work (docs/analysis.md): who may ask for and read one, the cached row per (match, seat, bot, games),
and the resumable run on the workers, a few decisions at a time at the lowest priority.

The one service behind `manage.py analyse`, `POST/GET /api/matches/ID/analysis/` and the viewer's strip.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine.bots import bot_names, is_bot_name
from replays import analysis
from replays.models import Analysis, Replay
from tournaments.dispatch import runner
from tournaments.formats.round_robin import derive_seed
from tournaments.models import Match
from tournaments.visibility import can_see_secrets, is_over

logger = logging.getLogger(__name__)

CHUNK_SECONDS = 20.0  # a task's turn: then it steps back behind the queued matches and goes on later
LEASE_SECONDS = 120  # a worker that stopped renewing (one renewal per decision) lets another resume its analysis


class AnalysisRefused(ValueError):
    """A request that cannot be analysed; `field` names the input at fault (the API's 400 key)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class AnalysisForbidden(Exception):
    """The requester may not see this match's analyses now (the API's 403)."""


@dataclass(frozen=True)
class AnalysisRequest:
    """Seat counted from 1, as people read and type it; a built-in bot's name; playouts per option."""

    seat: int = 1
    bot: str = "greedy"
    games: int = analysis.DEFAULT_GAMES


def may_analyse(user: Any, match: Match) -> bool:
    """An analysis plays every option out from the real position, with every seat's hand as it was: it shows what
    the match's secrets show, so it opens when they do (finished and over, or staff: tournaments/visibility.py)."""
    return match.status == Match.Status.FINISHED and can_see_secrets(user, is_over(match))


def check_may_analyse(user: Any, match: Match) -> None:
    if match.status != Match.Status.FINISHED:
        raise AnalysisRefused("match", f"match {match.pk} is {match.status}: only a finished match can be analysed")
    if not may_analyse(user, match):
        raise AnalysisForbidden(f"match {match.pk} is not over (another game dealt from its seed is still to be "
                                "played, or it is a private bot's validation match): its analysis would show every "
                                "seat's hidden cards, so only staff may see it now")


def request_analysis(match: Match, user: Any, request: AnalysisRequest) -> Analysis:
    """The analysis of this seat by this bot: the cached one, or a new one queued; one that stopped (failed, or its
    worker's lease ran out) is queued again and resumes where it stood."""
    check_may_analyse(user, match)
    if not 1 <= request.seat <= match.num_players:
        raise AnalysisRefused("seat", f"seat {request.seat} is not a seat of match {match.pk}: its seats are 1 to "
                                      f"{match.num_players} (counted from 1, as on the pages)")
    if not is_bot_name(request.bot):
        raise AnalysisRefused("bot", f"{request.bot!r} is not a built-in bot ({', '.join(bot_names())}, "
                                     "greedy_epsNN)")
    if not 1 <= request.games <= analysis.MAX_GAMES:
        raise AnalysisRefused("games", f"games must be 1 to {analysis.MAX_GAMES}, got {request.games}")
    replay = Replay.objects.filter(match=match).first()
    if replay is None:
        raise AnalysisRefused("match", f"match {match.pk} has no replay to analyse")
    seat = request.seat - 1
    with transaction.atomic():
        row, created = Analysis.objects.select_for_update().get_or_create(
            match=match, seat=seat, bot=request.bot, games=request.games,
            defaults={"seed": derive_seed(match.seed, seat, request.games),
                      "total": len(analysis.decision_steps(replay.document(), seat))})
        if created or _stopped(row):
            Analysis.objects.filter(pk=row.pk).update(status=Analysis.Status.QUEUED, error="", lease_until=None)
            transaction.on_commit(lambda: send(row.pk))
    row.refresh_from_db()
    return row


def _stopped(row: Analysis) -> bool:
    """Failed, held by a worker whose lease ran out, or queued for longer than a lease (its message was lost)."""
    now = timezone.now()
    return row.status == Analysis.Status.FAILED or (
        row.status == Analysis.Status.RUNNING and row.lease_until is not None and row.lease_until < now) or (
        row.status == Analysis.Status.QUEUED and row.updated_at < now - timedelta(seconds=LEASE_SECONDS))


def send(analysis_id: int) -> None:
    """Hand the analysis to the workers; a broker that refuses leaves it queued, and asking again sends it again."""
    try:
        runner().send_analysis(analysis_id)
    except Exception as exc:
        logger.warning("analysis %s not sent (asking for it again sends it): %s", analysis_id, exc)


def run_analysis(analysis_id: int, budget: float = CHUNK_SECONDS) -> str:
    """Analyse decisions until done or `budget` seconds are spent; "finished", "paused" (send it again: the queued
    matches go first), "failed" or "not claimed" (another worker holds it, or it is done). Safe to run twice: the
    claim is a compare-and-set with a lease, and each decision's result is saved as soon as it is known."""
    now = timezone.now()
    claimed = Analysis.objects.filter(pk=analysis_id).filter(
        Q(status=Analysis.Status.QUEUED) | Q(status=Analysis.Status.RUNNING, lease_until__lt=now)
    ).update(status=Analysis.Status.RUNNING, lease_until=now + timedelta(seconds=LEASE_SECONDS))
    if not claimed:
        return "not claimed"
    row = Analysis.objects.select_related("match").get(pk=analysis_id)
    started = time.monotonic()
    try:
        plan = analysis.Plan(Replay.objects.get(match=row.match).document(), row.seat, row.bot, row.games, row.seed)
        last = time.monotonic()
        for result in analysis.analyse(plan, skip=[entry["step"] for entry in row.steps]):
            row.steps.append(result)
            row.seconds += time.monotonic() - last
            last = time.monotonic()
            row.lease_until = timezone.now() + timedelta(seconds=LEASE_SECONDS)
            row.save(update_fields=["steps", "seconds", "lease_until", "updated_at"])
            if time.monotonic() - started >= budget and len(row.steps) < row.total:
                Analysis.objects.filter(pk=row.pk).update(status=Analysis.Status.QUEUED, lease_until=None)
                return "paused"
    except Exception as exc:  # a broken replay or engine: said on the analysis, never retried blindly
        logger.exception("analysis %s failed", analysis_id)
        Analysis.objects.filter(pk=row.pk).update(status=Analysis.Status.FAILED, lease_until=None,
                                                  error=f"{type(exc).__name__}: {exc}")
        return "failed"
    Analysis.objects.filter(pk=row.pk).update(status=Analysis.Status.FINISHED, lease_until=None)
    return "finished"


def run_to_end(analysis_id: int) -> str:
    """The embedded runner's loop (no broker, so no queue to step back into): chunk after chunk until done."""
    outcome = "paused"
    while outcome == "paused":
        outcome = run_analysis(analysis_id)
    return outcome


def visible_analyses(user: Any, match: Match) -> list[Analysis]:
    """The match's analyses, newest first; AnalysisForbidden/AnalysisRefused as for asking for one."""
    check_may_analyse(user, match)
    return list(Analysis.objects.filter(match=match).order_by("-pk"))


def biggest_losses(row: Analysis, count: int = 5) -> list[dict[str, Any]]:
    """The marked decisions that gave up most expected score, largest first."""
    marked = [entry for entry in row.steps if entry.get("mark")]
    return sorted(marked, key=lambda e: (-e["loss"]["score"]["loss"], -e["loss"]["wins"]["loss"], e["step"]))[:count]


def summary(row: Analysis) -> dict[str, Any]:
    """Counts of marks, progress and the cost: decisions per minute of worker time."""
    marks = {name: sum(1 for entry in row.steps if entry.get("mark") == name) for name in analysis.MARKS}
    rate = round(len(row.steps) * 60 / row.seconds, 1) if row.seconds else None
    return {"done": len(row.steps), "marks": marks, "decisions_per_minute": rate}
