"""The match lifecycle: enqueue, claim, record a result, fail or requeue, reap expired leases.

Every state change is a compare-and-set on Match.status, so any number of runners on any number of machines can
race on the same match and exactly one result is kept (ARCHITECTURE §5, §9).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from replays.models import Replay
from replays.progress import MatchProgress
from tournaments.models import Match, Seat, Tournament
from tournaments.ratings import lock_competition, rate_seats, update_rows

logger = logging.getLogger(__name__)

Status = Match.Status


class ResultRefused(Exception):
    """A result for a match this runner no longer holds (already finished, cancelled, or re-claimed)."""


def enqueue_match(match: Match) -> None:
    """Hand the match id to a runner once the current transaction commits, so the runner sees the rows."""
    match_id = match.pk
    transaction.on_commit(lambda: dispatch_match(match_id))


def dispatch_match(match_id: int) -> None:
    """Send now: to Celery when a broker is configured, else to the embedded process pool."""
    # Imported here: the web process is the composition root that wires the runners in.
    if settings.CELERY_BROKER_URL:
        from workers.tasks import run_match_task

        run_match_task.delay(match_id)
    else:
        from workers.embedded import submit_match

        submit_match(match_id)


def claim_match(match_id: int, owner: str, now: datetime | None = None) -> bool:
    """Take the match for this runner; True for exactly one of any number of racing claimers."""
    now = now or timezone.now()
    claimable = Q(status=Status.QUEUED) | Q(status=Status.RUNNING, lease_expires__lt=now)
    claimed = Match.objects.filter(claimable, pk=match_id).update(
        status=Status.RUNNING,
        lease_owner=owner,
        lease_expires=now + timedelta(seconds=settings.LUDUS_LEASE_SECONDS),
        attempts=F("attempts") + 1,
        started_at=now,
    )
    return claimed == 1


def record_result(match_id: int, owner: str, document: dict[str, Any], logs: list[str] | None = None,
                  seats: list[Seat] | None = None) -> Match:
    """In one transaction: finish the match, write its seats, its replay and the rating updates.

    document is the verified replay document, logs each seat's captured stderr; seats, the match's seats with their
    match as the runner loaded them (else read here). Raises ResultRefused unless this runner holds the running
    match; a second replay for the match raises IntegrityError (and writes nothing). Eight statements for a rated
    match once its seats have ratings (seven with seats given), one lock on the competition row.
    """
    now = timezone.now()
    # The seats with their match: what is read here (the seat numbers and versions, the match's competition, player
    # count and rated flag) never changes once the match exists, so it needs no lock.
    if seats is None or any(seat.match_id != match_id for seat in seats):
        seats = list(Seat.objects.filter(match_id=match_id).select_related("match").order_by("number"))
    if not seats:
        raise ResultRefused(f"match {match_id} has no seats; its result was not recorded")
    match = seats[0].match
    with transaction.atomic():
        # The competition row first: it serializes rating updates and round changes, in one lock order.
        seq = lock_competition(match)
        finished = Match.objects.filter(pk=match_id, status=Status.RUNNING, lease_owner=owner).update(
            status=Status.FINISHED, finished_at=now, lease_expires=None, error="", rating_seq=seq
        )
        if finished != 1:
            raise ResultRefused(f"match {match_id} is not running under {owner}; its result was not recorded")
        match.status, match.finished_at, match.lease_expires, match.error = Status.FINISHED, now, None, ""
        match.rating_seq = seq
        _apply_outcome(match, seats, document, logs or [])
        if match.rated:
            rate_seats(match, seats, seq)
        update_rows(Seat, seats, _SEAT_RESULT_FIELDS)
        Replay.from_document(match, document).save()
        MatchProgress.objects.filter(match_id=match_id).delete()  # the replay has every action now
    if match.tournament_id:
        finish_tournament_if_done(match.tournament_id)
    return match


_SEAT_RESULT_FIELDS = [
    "score", "rank", "faults", "forfeited", "log",
    "rating_mu_before", "rating_mu_after", "rating_sigma_before", "rating_sigma_after",
]


def _apply_outcome(match: Match, seats: list[Seat], document: dict[str, Any], logs: list[str]) -> None:
    footer = document["footer"]
    outcome = footer["outcome"]
    logs = logs + [""] * (match.num_players - len(logs))
    for seat in seats:
        seat.score = outcome["scores"][seat.number]
        seat.rank = outcome["ranks"][seat.number]
        seat.faults = footer["faults"][seat.number]
        seat.forfeited = footer["forfeited"][seat.number]
        seat.log = logs[seat.number][-20000:]


def fail_match(
    match_id: int, owner: str, cause: str, permanent: bool = False, expired_before: datetime | None = None
) -> str:
    """An infrastructure failure: requeue while attempts remain, else mark failed. Failed matches are unrated.

    Only the runner holding the lease may fail the match; the reaper passes expired_before to act on stale ones.
    """
    with transaction.atomic():
        held = Match.objects.select_for_update().filter(pk=match_id, status=Status.RUNNING, lease_owner=owner)
        if expired_before is not None:
            held = held.filter(lease_expires__lt=expired_before)
        match = held.first()
        if match is None:
            return "lost"
        match.error = cause[-4000:]
        match.lease_expires = None
        if permanent or match.attempts >= settings.LUDUS_MATCH_ATTEMPTS:
            match.status, match.finished_at = Status.FAILED, timezone.now()
            match.save(update_fields=["status", "finished_at", "error", "lease_expires"])
        else:
            match.status, match.queued_at = Status.QUEUED, timezone.now()
            match.save(update_fields=["status", "error", "lease_expires", "queued_at"])
            enqueue_match(match)
    if match.status == Status.FAILED and match.tournament_id:
        finish_tournament_if_done(match.tournament_id)
    return "failed" if match.status == Status.FAILED else "requeued"


def requeue_expired(now: datetime | None = None) -> int:
    """The reaper: give matches whose runner vanished (lease expired) back to the queue; return how many."""
    now = now or timezone.now()
    expired = Match.objects.filter(status=Status.RUNNING, lease_expires__lt=now).values_list("pk", "lease_owner")
    reaped = 0
    for match_id, owner in list(expired):
        cause = f"the lease of {owner} expired before it recorded a result"
        if fail_match(match_id, owner, cause, expired_before=now) != "lost":
            reaped += 1
    return reaped


def renew_lease(match_id: int, owner: str, now: datetime | None = None) -> bool:
    """The runner's heartbeat: push its lease forward; False once the match is no longer running under owner."""
    now = now or timezone.now()
    expires = now + timedelta(seconds=settings.LUDUS_LEASE_SECONDS)
    held = Match.objects.filter(pk=match_id, status=Status.RUNNING, lease_owner=owner)
    return held.update(lease_expires=expires) == 1


def redispatch_queued(now: datetime | None = None) -> int:
    """The reaper: send again queued matches unclaimed for LUDUS_REDISPATCH_SECONDS; return how many.

    Redis without persistence forgets its queue on a restart, and nothing else would ever send those ids again. A
    message that was not lost after all costs one refused claim: the runner claims by compare-and-set.
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.LUDUS_REDISPATCH_SECONDS)
    sent = 0
    for match_id, queued_at in list(
        Match.objects.filter(status=Status.QUEUED, queued_at__lt=stale).values_list("pk", "queued_at")
    ):
        # Compare-and-set on queued_at: two reapers racing send each match once.
        if Match.objects.filter(pk=match_id, status=Status.QUEUED, queued_at=queued_at).update(queued_at=now):
            dispatch_match(match_id)
            sent += 1
    return sent


def cancel_match(match: Match) -> bool:
    """Queued or running → cancelled. A runner still playing it will find its result refused."""
    cancelled = Match.objects.filter(pk=match.pk, status__in=[Status.QUEUED, Status.RUNNING]).update(
        status=Status.CANCELLED, lease_expires=None, finished_at=timezone.now()
    )
    if cancelled and match.tournament_id:
        finish_tournament_if_done(match.tournament_id)
    return cancelled == 1


def requeue_match(match: Match) -> bool:
    """Failed or cancelled → queued, with a fresh attempt count, and enqueue it. It stays rated or unrated as it
    was created: an author's try-out stays unrated."""
    with transaction.atomic():
        requeued = Match.objects.filter(pk=match.pk, status__in=[Status.FAILED, Status.CANCELLED]).update(
            status=Status.QUEUED, attempts=0, lease_owner="", lease_expires=None, finished_at=None,
            queued_at=timezone.now(),
        )
        if requeued and match.tournament_id is not None:
            Tournament.objects.filter(pk=match.tournament_id, state=Tournament.State.FINISHED).update(
                state=Tournament.State.RUNNING
            )
        if requeued:
            enqueue_match(match)
    return requeued == 1


def finish_tournament_if_done(tournament_id: int) -> bool:
    """After a match of the tournament ends: the next round once this one is done, or the end (True when finished).

    tournaments/progress.py decides, under a lock on the tournament; a failure here leaves the recorded result as
    it is, and the beat task workers.advance_tournaments tries again.
    """
    from tournaments.progress import advance_tournament

    try:
        return advance_tournament(tournament_id) == "finished"
    except Exception:
        logger.exception("advancing tournament %s failed; the beat task will retry", tournament_id)
        return False
