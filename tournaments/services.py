"""The match lifecycle: enqueue, claim, record a result, fail or requeue, reap expired leases.

Every state change is a compare-and-set on Match.status, so any number of runners on any number of machines can
race on the same match and exactly one result is kept (docs/architecture.md#data-model,
docs/architecture.md#configuration).
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import DurationField, F, Model, Q, Value
from django.db.models.expressions import CombinedExpression
from django.db.models.functions import Now
from django.utils import timezone

from tournaments.advancement import advance_tournament
from tournaments.dispatch import send_matches
from tournaments.models import Bot, BotVersion, Ladder, Match, Seat, StandingsRow, Tournament
from tournaments.ratings import locked_ratings, rate_seats, send_competition_lock, unrate, update_rows
from tournaments.rows import columns, instances, width
from tournaments.standings import count_result, rebuild_standings, result_rows, uncount_result

logger = logging.getLogger(__name__)

Status = Match.Status
M = TypeVar("M", bound=Model)


class ResultRefused(Exception):
    """A result for a match this runner no longer holds (already finished, cancelled, or re-claimed)."""


def claim_match(match_id: int, owner: str, worker: str = "") -> bool:
    """Take the match for this runner; True for exactly one of any number of racing claimers.

    Leases are on the database's clock (now() in SQL), so hosts whose clocks disagree never take each other's. A
    worker does not take a match it failed itself less than a lease ago (see decline_match)."""
    return bool(claim_and_read(match_id, owner, worker))


def claim_and_read(match_id: int, owner: str, worker: str = "", one_statement: bool | None = None
                   ) -> list[tuple[Any, ...]]:
    """claim_match, and the claimed match's row with its seats, their versions and bots, for loaded_match; no rows
    when the match was not claimed. On PostgreSQL in one statement: one round trip and no query building instead of
    two of each (the runner's fixed cost); elsewhere (SQLite has no UPDATE in a WITH) the claim, then the read, in one
    transaction: a read that fails takes the claim back with it, so a retry (with_db_retry) claims again instead of
    finding the match running under a lease nobody holds. one_statement: which of the two (by default, by the
    database; tests run both on PostgreSQL)."""
    if one_statement is None:
        one_statement = connection.vendor == "postgresql"
    params: dict[str, Any] = {"id": match_id, "owner": owner, "worker": worker, "queued": Status.QUEUED,
                              "running": Status.RUNNING, "lease": timedelta(seconds=settings.LUDUS_LEASE_SECONDS),
                              "limit": settings.LUDUS_MATCH_ATTEMPTS}
    with contextlib.nullcontext() if one_statement else transaction.atomic(), connection.cursor() as cursor:
        if one_statement:
            cursor.execute(_claim_sql(bool(worker), quick=not connection.in_atomic_block), params)
        elif _claim(match_id, owner, worker):
            cursor.execute(_read_sql(connection.ops.quote_name(Match._meta.db_table) + " c")
                           + ' WHERE c."id" = %s ORDER BY s."number"', [match_id])
        else:
            return []
        return list(cursor.fetchall())


def _claim(match_id: int, owner: str, worker: str) -> bool:
    """claim_match's compare-and-set, by the ORM (for databases other than PostgreSQL)."""
    queued = Q(status=Status.QUEUED)
    if worker:
        queued &= ~Q(failed_by=worker, queued_at__gt=Now() - _seconds(settings.LUDUS_LEASE_SECONDS))
    # An expired lease on the last attempt is the reaper's to fail, not a late task's to run again.
    claimable = queued | Q(status=Status.RUNNING, lease_expires__lt=Now(), attempts__lt=settings.LUDUS_MATCH_ATTEMPTS)
    return Match.objects.filter(claimable, pk=match_id).update(
        status=Status.RUNNING, lease_owner=owner, lease_expires=_lease_end(), attempts=F("attempts") + 1,
        started_at=Now(),
    ) == 1


LOADED = (Match, Seat, BotVersion, Bot)  # a row of claim_and_read: these models' columns in turn


@functools.cache
def _claim_sql(declines: bool, quick: bool = False) -> str:
    """_claim as an UPDATE ... RETURNING in a WITH, read with the seats in seat order (PostgreSQL). quick: the claim
    is its own transaction, which then commits without waiting for the disk (a claim a crash forgets is a match
    queued again: docs/architecture.md#lost-and-duplicate-messages); inside a caller's transaction, never (the
    setting would hold for all of it)."""
    quote = connection.ops.quote_name
    declined = (f' AND NOT ({quote("failed_by")} = %(worker)s AND {quote("queued_at")} > STATEMENT_TIMESTAMP() - '
                '%(lease)s)') if declines else ""
    unflushed = "set_config('synchronous_commit', 'off', true) = 'off' AND " if quick else ""
    return (f'WITH c AS (UPDATE {quote(Match._meta.db_table)} SET "status" = %(running)s, "lease_owner" = %(owner)s, '
            '"lease_expires" = STATEMENT_TIMESTAMP() + %(lease)s, "attempts" = "attempts" + 1, '
            f'"started_at" = STATEMENT_TIMESTAMP() WHERE {unflushed}"id" = %(id)s AND (("status" = %(queued)s'
            f'{declined}) OR ("status" = %(running)s AND "lease_expires" < STATEMENT_TIMESTAMP() AND '
            '"attempts" < %(limit)s)) RETURNING *) '
            + _read_sql("c") + ' ORDER BY s."number"')


@functools.cache
def _read_sql(source: str) -> str:
    """The columns of the match c from source, then of each of its seats, their versions and bots (LOADED)."""
    quote = connection.ops.quote_name
    seat, version, bot = (quote(model._meta.db_table) for model in LOADED[1:])
    read = ", ".join(columns(model, alias) for alias, model in zip("csvb", LOADED, strict=True))
    return (f'SELECT {read} FROM {source} LEFT JOIN {seat} s ON s."match_id" = c."id" '
            f'LEFT JOIN {version} v ON v."id" = s."bot_version_id" LEFT JOIN {bot} b ON b."id" = v."bot_id"')


def loaded_match(rows: list[tuple[Any, ...]]) -> tuple[Match, list[Seat]]:
    """The objects of claim_and_read's rows: the match, and its seats in order with their versions and bots."""
    [match] = instances(rows[0], (Match,))
    seats = []
    for row in rows:
        if row[width(Match)] is None:  # a match without seats: one row, its seat columns null
            break
        seat, version, bot = instances(row[width(Match):], LOADED[1:])
        version.bot, seat.bot_version, seat.match = bot, version, match
        seats.append(seat)
    return match, seats


def decline_match(match_id: int, worker: str) -> bool:
    """Give back a match this worker failed a moment ago, for another worker: it goes back to the outbox and is
    sent again within a beat. After a lease with no other taker, the same worker may have it (claim_match)."""
    recent = Now() - _seconds(settings.LUDUS_LEASE_SECONDS)
    return Match.objects.filter(pk=match_id, status=Status.QUEUED, failed_by=worker, queued_at__gt=recent).update(
        dispatched_at=None, dispatch_after=Now() + _seconds(1)) == 1


def _lease_end() -> CombinedExpression:
    return Now() + Value(timedelta(seconds=settings.LUDUS_LEASE_SECONDS), output_field=DurationField())


def record_result(match_id: int, owner: str, document: dict[str, Any], logs: list[str] | None = None,
                  seats: list[Seat] | None = None, *, store: Callable[[Match, dict[str, Any]], None]) -> Match:
    """In one transaction: finish the match, write its seats, its replay and the rating updates.

    document is the replay document as played (the runner verifies it after the match: revert_result undoes a result
    whose replay does not re-simulate), logs each seat's captured stderr; seats, the match's seats with their
    match as the runner loaded them (else read here); store writes the replay, called with the finished match and
    the document inside the transaction (the runner passes replays.store.store_replay: replays imports tournaments,
    never the reverse). Raises ResultRefused unless this runner holds the running
    match; a second replay for the match raises IntegrityError (and writes nothing). Nine statements for a rated
    match once its seats have ratings and standings rows (eight with seats given), one lock on the competition row.
    """
    now = timezone.now()
    # The seats with their match: what is read here (the seat numbers and versions, the match's competition, player
    # count and rated flag) never changes once the match exists, so it needs no lock.
    if seats is None or any(seat.match_id != match_id for seat in seats):
        seats = list(Seat.objects.filter(match_id=match_id).select_related("match").order_by("number"))
    if not seats:
        raise ResultRefused(f"match {match_id} has no seats; its result was not recorded")
    match = seats[0].match
    with transaction.atomic(), _pipelined():
        # The competition row first: it serializes rating updates and round changes, in one lock order. On
        # PostgreSQL the statements go in a pipeline: BEGIN, the lock, the compare-and-set, the read of the standings
        # rows and the rating rows' lock are sent together and answered in one round trip; then the writes and
        # COMMIT in a second (a version's first game there creates its rows: one or two more).
        taken = send_competition_lock(match, finishing=True)
        finished = _send_finish(match, owner, now)
        standings = _send_read(StandingsRow, *result_rows(match, seats))
        ratings = locked_ratings(match, [seat.bot_version_id for seat in seats]) if match.rated else None
        seq = taken()
        if finished() != 1:
            raise ResultRefused(f"match {match_id} is not running under {owner}; its result was not recorded")
        match.status, match.finished_at, match.lease_expires, match.error = Status.FINISHED, now, None, ""
        match.rating_seq = seq
        apply_outcome(match, seats, document, logs or [])
        count_result(match, seats, standings())
        if match.rated:
            rate_seats(match, seats, seq, ratings)
        update_rows(Seat, seats, SEAT_RESULT_FIELDS)
        store(match, document)
    if match.tournament_id:
        finish_tournament_if_done(match.tournament_id)
    return match


RESULT_FIELDS = {"score": None, "rank": None, "rating_mu_before": None, "rating_mu_after": None,
                 "rating_sigma_before": None, "rating_sigma_after": None}


def revert_result(match_id: int, cause: str, flag: Callable[[int], None]) -> bool:
    """A recorded result whose replay did not verify: the match failed with the cause, its seats' results cleared,
    and its rating updates and standings undone (ratings.unrate re-rates the matches rated after it), so nothing of
    it counts and the competition stands as its history without it would give; flag is
    called with the match id in the same transaction (replays.verification marks the replay). Under the
    competition's lock, as record_result. False when the match is not finished (reverted already)."""
    match = Match.objects.filter(pk=match_id).select_related("ladder", "tournament").first()
    if match is None:
        return False
    competition = match.ladder or match.tournament
    if competition is None:
        raise ValueError(f"match {match_id} belongs to no ladder or tournament")
    with transaction.atomic():
        type(competition).objects.select_for_update().filter(pk=competition.pk).values_list("pk").get()
        if Match.objects.filter(pk=match_id, status=Status.FINISHED).update(
                status=Status.FAILED, error=cause[-4000:], lease_expires=None) != 1:
            return False
        counted = list(Seat.objects.filter(match_id=match_id).order_by("number"))
        Seat.objects.filter(match_id=match_id).update(**RESULT_FIELDS)
        flag(match_id)
        # Undone rather than rebuilt: a revert costs the matches rated since, not the competition's history
        if match.rated:
            unrate(match, counted)
        if not uncount_result(match, counted):
            rebuild_standings(competition)
    logger.error("match %s: result reverted, its replay does not verify: %s", match_id, cause)
    if match.tournament_id:
        finish_tournament_if_done(match.tournament_id)
    return True


@contextlib.contextmanager
def _pipelined() -> Iterator[None]:
    """psycopg's pipeline mode on Django's connection (PostgreSQL): statements are sent without waiting for their
    answers, which come when one is read (a fetch, or the end of the block). Inside transaction.atomic(), so a
    failed statement raises (as Django's error) inside the transaction, which rolls back."""
    if connection.vendor != "postgresql":
        yield
        return
    connection.ensure_connection()
    with connection.wrap_database_errors, connection.connection.pipeline():
        yield


def _send_finish(match: Match, owner: str, now: datetime) -> Callable[[], int]:
    """The result's compare-and-set, sent (written out: in a pipeline its answer comes with the next statement's, or
    when read); the function returned reads how many rows it finished. A rated match takes the `rating_seq` the
    competition's lock (sent before it, in the same transaction) has just taken."""
    field = Match._meta.get_field("finished_at")
    quote = connection.ops.quote_name
    competition = (Ladder if match.ladder_id else Tournament)._meta.db_table
    seq = f'(SELECT "rating_seq" FROM {quote(competition)} WHERE "id" = %s)' if match.rated else "NULL"
    # In a pipeline the row count is only set once the answer is read, and reading rows is what waits for it.
    returning = ' RETURNING "id"' if connection.vendor == "postgresql" else ""
    cursor = connection.cursor()
    cursor.execute(f'UPDATE {quote(Match._meta.db_table)} SET "status" = %s, "finished_at" = %s, '
                   f'"lease_expires" = NULL, "error" = \'\', "rating_seq" = {seq} '
                   f'WHERE "id" = %s AND "status" = %s AND "lease_owner" = %s{returning}',
                   [Status.FINISHED, field.get_db_prep_save(now, connection),
                    *([match.ladder_id or match.tournament_id] if match.rated else []), match.pk, Status.RUNNING,
                    owner])

    def finished() -> int:
        with cursor:
            return len(cursor.fetchall()) if returning else int(cursor.rowcount)

    return finished


def _send_read(model: type[M], sql: str, params: list[Any]) -> Callable[[], list[M]]:
    """The statement that reads rows of model, sent (in a pipeline its answer comes with the next one read); the
    function returned reads its instances. Elsewhere read at once."""
    cursor = connection.cursor()
    cursor.execute(sql, params)

    def read() -> list[M]:
        with cursor:
            return [instances(row, (model,))[0] for row in cursor.fetchall()]

    if connection.vendor != "postgresql":
        found = read()
        return lambda: found
    return read


SEAT_RESULT_FIELDS = [
    "score", "rank", "faults", "forfeited", "log",
    "rating_mu_before", "rating_mu_after", "rating_sigma_before", "rating_sigma_after",
]


def apply_outcome(match: Match, seats: list[Seat], document: dict[str, Any], logs: list[str]) -> None:
    footer = document["footer"]
    outcome = footer["outcome"]
    logs = logs + [""] * (match.num_players - len(logs))
    for seat in seats:
        seat.score = outcome["scores"][seat.number]
        seat.rank = outcome["ranks"][seat.number]
        seat.faults = footer["faults"][seat.number]
        seat.forfeited = footer["forfeited"][seat.number]
        seat.log = logs[seat.number][-20000:]


def fail_match(match_id: int, owner: str, cause: str, permanent: bool = False, expired: bool = False,
               failed_by: str = "", ended: Callable[[int], None] | None = None) -> str:
    """An infrastructure failure: requeue with back-off while attempts remain, else mark failed (unrated).

    Only the runner holding the lease may fail the match; the reaper passes expired=True to act on stale ones (the
    lease past its end on the database's clock). failed_by names the worker, so its refund can find the match.
    ended is called with the match id inside the transaction, once the attempt is over: the runner and the reaper
    pass replays.store.drop_progress, so the live progress goes with the failed attempt.
    """
    with transaction.atomic():
        held = Match.objects.select_for_update().filter(pk=match_id, status=Status.RUNNING, lease_owner=owner)
        if expired:
            held = held.filter(lease_expires__lt=Now())
        match = held.first()
        if match is None:
            return "lost"
        update: dict[str, Any] = {"error": cause[-4000:], "lease_expires": None, "failed_by": failed_by[:200]}
        if permanent or match.attempts >= settings.LUDUS_MATCH_ATTEMPTS:
            update |= {"status": Status.FAILED, "finished_at": Now()}
        else:
            # A vanished runner's match (expired) goes straight back; a failing one waits out its back-off.
            delay = 0.0 if expired else retry_delay(match.attempts)
            update |= {"status": Status.QUEUED, "queued_at": Now(), "dispatched_at": None,
                       "dispatch_after": Now() + _seconds(delay)}
        Match.objects.filter(pk=match_id).update(**update)
        if ended is not None:
            ended(match_id)
    if update["status"] == Status.FAILED:
        logger.error("match %s failed after %s attempt(s): %s", match_id, match.attempts,
                     (cause.splitlines() or [""])[0])
        if match.tournament_id:
            finish_tournament_if_done(match.tournament_id)
        return "failed"
    return "requeued"  # beat's send_outbox sends it after the back-off (embedded: the pool child runs it again)


def retry_delay(attempts: int) -> float:
    """Seconds a match waits before its next attempt: exponential from LUDUS_RETRY_SECONDS, capped at 5 minutes."""
    return float(min(300, settings.LUDUS_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


def _seconds(seconds: float) -> Value:
    return Value(timedelta(seconds=seconds), output_field=DurationField())


def requeue_expired(ended: Callable[[int], None] | None = None) -> int:
    """The reaper: give matches whose runner vanished (lease expired on the database clock) back to the queue;
    ended as for fail_match."""
    expired = Match.objects.filter(status=Status.RUNNING, lease_expires__lt=Now()).values_list("pk", "lease_owner")
    reaped = 0
    for match_id, owner in list(expired):
        cause = f"the lease of {owner} expired before it recorded a result"
        if fail_match(match_id, owner, cause, expired=True, ended=ended) != "lost":
            reaped += 1
    return reaped


def renew_lease(match_id: int, owner: str) -> bool:
    """The runner's heartbeat: push its lease forward; False once the match is no longer running under owner."""
    held = Match.objects.filter(pk=match_id, status=Status.RUNNING, lease_owner=owner)
    return held.update(lease_expires=_lease_end()) == 1


def redispatch_lost(live_ids: Callable[[], set[int] | None]) -> int:
    """The lost-message finder: put back in the outbox the queued matches whose message is gone; return how many.

    A match sent more than LUDUS_REDISPATCH_SECONDS ago and still queued is a suspect; live_ids() reads which match
    ids have a message in the broker (queued, or delivered to a worker that is still on it). Suspects without one
    lost their message (a broker restart without persistence, a worker killed with it); the rest are only waiting
    in a backlog and are never sent twice. With no way to read the broker (None), age alone decides.
    """
    stale = Now() - _seconds(settings.LUDUS_REDISPATCH_SECONDS)
    suspects = dict(Match.objects.filter(status=Status.QUEUED, dispatched_at__lt=stale)
                    .values_list("pk", "dispatched_at"))
    if not suspects:
        return 0
    live = live_ids()
    lost = [pk for pk in suspects if live is None or pk not in live]
    returned = 0
    for pk in lost:  # compare-and-set on dispatched_at: a match claimed or re-sent meanwhile is left alone
        returned += Match.objects.filter(pk=pk, status=Status.QUEUED, dispatched_at=suspects[pk]).update(
            dispatched_at=None, dispatch_after=Now())
    if returned:
        logger.warning("dispatch: %s queued match(es) lost their message; sending them again", returned)
    return returned


def refund_failures(worker: str) -> int:
    """A worker found itself broken: the attempts it cost do not count against the matches, and the ones it failed
    for good go back to the queue. Return how many matches were given an attempt back."""
    with transaction.atomic():
        mine = Match.objects.select_for_update().filter(failed_by=worker, attempts__gt=0,
                                                         status__in=[Status.QUEUED, Status.FAILED])
        matches = list(mine.values_list("pk", "status", "tournament_id"))
        mine.filter(status=Status.QUEUED).update(attempts=F("attempts") - 1, failed_by="")
        mine.filter(status=Status.FAILED).update(
            status=Status.QUEUED, attempts=F("attempts") - 1, failed_by="", finished_at=None, queued_at=Now(),
            dispatched_at=None, dispatch_after=Now())
    if matches:
        logger.warning("worker %s gave back the attempts of %s match(es) it failed", worker, len(matches))
    return len(matches)


def cancel_match(match: Match, ended: Callable[[int], None] | None = None) -> bool:
    """Queued or running → cancelled. A runner still playing it will find its result refused. ended as for
    fail_match (the match admin passes replays.store.drop_progress)."""
    with transaction.atomic():
        cancelled = Match.objects.filter(pk=match.pk, status__in=[Status.QUEUED, Status.RUNNING]).update(
            status=Status.CANCELLED, lease_expires=None, finished_at=Now()
        )
        if ended is not None:
            ended(match.pk)
    if cancelled and match.tournament_id:
        finish_tournament_if_done(match.tournament_id)
    return cancelled == 1


def requeue_match(match: Match) -> bool:
    """Failed or cancelled → queued, with a fresh attempt count, and sent ahead of new matches. It stays rated or
    unrated as it was created: an author's try-out stays unrated."""
    with transaction.atomic():
        requeued = Match.objects.filter(pk=match.pk, status__in=[Status.FAILED, Status.CANCELLED]).update(
            status=Status.QUEUED, attempts=0, lease_owner="", lease_expires=None, finished_at=None,
            queued_at=Now(), dispatched_at=None, dispatch_after=None, failed_by="",
        )
        if requeued and match.tournament_id is not None:
            Tournament.objects.filter(pk=match.tournament_id, state=Tournament.State.FINISHED).update(
                state=Tournament.State.RUNNING
            )
        if requeued:
            match_id = match.pk
            transaction.on_commit(lambda: send_matches([match_id], recovered=True))
    return requeued == 1


def requeue_failed(tournament: Tournament) -> int:
    """The organiser's one click: every failed match of the tournament back to the queue; return how many."""
    failed = list(Match.objects.filter(tournament=tournament, status=Status.FAILED).order_by("pk"))
    return sum(requeue_match(match) for match in failed)


def finish_tournament_if_done(tournament_id: int) -> bool:
    """After a match of the tournament ends: the next round once this one is done, or the end (True when finished).

    tournaments/advancement.py decides, under a lock on the tournament; a failure here leaves the recorded result as
    it is, and the beat task workers.advance_tournaments tries again.
    """
    try:
        return advance_tournament(tournament_id) == "finished"
    except Exception:
        logger.exception("advancing tournament %s failed; the beat task will retry", tournament_id)
        return False
