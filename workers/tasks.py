"""Thin Celery tasks: they take ids and call the services, which are safe to run twice.

Loaded with Django set up: a worker imports this module (the app's `include`) after Celery's Django fix-up has
run django.setup(), and the web side reaches it only through workers.dispatch, in a configured process. Shared
tasks: they use the app of config/celery.py, which sits above this package (docs/architecture.md#configuration).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from replays.analysis_jobs import run_analysis, send
from replays.moves import move_pending
from replays.store import drop_progress
from replays.verification import sweep_unverified, verify_replay
from replays.version_test_measures import advance_all
from tournaments.advancement import advance_running_tournaments
from tournaments.bot_lifecycle import flag_faulty_bots, revalidate_stale
from tournaments.dberrors import describe, is_connection_lost
from tournaments.dispatch import send_outbox
from tournaments.ladder_clock import scheduled_round
from tournaments.services import redispatch_lost, requeue_expired
from workers.broker import live_match_ids
from workers.runner import run_match
from workers.validation import ValidationUnavailable, validate_version

logger = logging.getLogger(__name__)


# Back-off 1, 2, 4... seconds up to half a lease: no jitter, a lost database is the same for every waiting match.
@shared_task(name="workers.run_match", autoretry_for=(OperationalError, InterfaceError), max_retries=None,
             retry_backoff=True, retry_backoff_max=max(1, settings.LUDUS_LEASE_SECONDS // 2), retry_jitter=False)
def run_match_task(match_id: int) -> str:
    """Run the match. While the database is unreachable the task is retried with back-off (a new message before
    this one is acknowledged), so an outage delays matches and never strands them."""
    try:
        return run_match(match_id)
    except (OperationalError, InterfaceError) as exc:
        what = "is unreachable" if is_connection_lost(exc) else "refused a statement"
        logger.warning("match %s: the database %s; retrying with back-off (%s)", match_id, what, describe(exc))
        raise


@shared_task(name="workers.verify_replay", autoretry_for=(OperationalError, InterfaceError), max_retries=5,
             retry_backoff=True, retry_jitter=False)
def verify_replay_task(match_id: int) -> str:
    """Re-simulate a recorded match's replay (sent by the runner after the result): verified, or its result
    reverted and the replay flagged (replays/verification.py)."""
    return verify_replay(match_id)


@shared_task(name="workers.sweep_unverified_replays")
def sweep_unverified_replays_task() -> int:
    """Beat: verify the replays still unverified LUDUS_VERIFY_SWEEP_SECONDS after their result (a lost message)."""
    return sweep_unverified(settings.LUDUS_VERIFY_SWEEP_SECONDS)


@shared_task(name="workers.analyse_match")
def analyse_match_task(analysis_id: int) -> str:
    """A turn of a match analysis (docs/analysis.md): some decisions, then the rest sent again behind the queued
    matches (priority PRIORITY_ANALYSIS), so ladder and tournament matches go first."""
    outcome = run_analysis(analysis_id)
    if outcome == "paused":
        send(analysis_id)
    return outcome


@shared_task(name="workers.send_outbox")
def send_outbox_task() -> int:
    """Beat, every LUDUS_DISPATCH_SECONDS: find lost messages, then send what the outbox holds (retries whose back-off
    is over, matches a broker outage left unsent, lost ones)."""
    try:
        redispatch_lost(live_match_ids)
    except Exception:  # the broker is unreadable right now: the next tick looks again; the outbox still goes out
        logger.warning("dispatch: could not look for lost messages", exc_info=True)
    return send_outbox()


@shared_task(name="workers.requeue_expired")
def requeue_expired_task() -> int:
    """Beat, the reaper: requeue matches whose lease expired (on the database's clock), then send the outbox."""
    reaped = requeue_expired(ended=drop_progress)  # the expired attempts' live progress goes with them
    send_outbox_task()
    return reaped


@shared_task(name="workers.validate_version", autoretry_for=(ValidationUnavailable,), max_retries=5,
             default_retry_delay=30)
def validate_version_task(version_id: int) -> str:
    """The smoke match of a new bot version; a sandbox failure (not the bot's) is retried."""
    return validate_version(version_id)


@shared_task(name="workers.revalidate_stale")
def revalidate_stale_task() -> int:

    return revalidate_stale()


@shared_task(name="workers.flag_faulty_bots")
def flag_faulty_bots_task() -> int:

    return flag_faulty_bots()


@shared_task(name="workers.schedule_ladders")
def schedule_ladders_task() -> int:
    """Beat: top every unpaused ladder up to its bound of queued matches, chosen by rating; the ladder pages say
    when the next round comes (tournaments/ladder_clock.py)."""
    return scheduled_round()


@shared_task(name="workers.advance_tournaments")
def advance_tournaments_task() -> int:
    """Beat: the safety net for a worker that died between recording a result and advancing its tournament."""
    return advance_running_tournaments()


@shared_task(name="workers.advance_version_tests")
def advance_version_tests_task() -> int:
    """Beat: tally every version test whose batch is played, decide or queue its next batch."""
    return advance_all()


@shared_task(name="workers.move_pending_replays")
def move_pending_replays_task() -> int:
    """Beat: move the replays the store did not take when their results were written to it, each verified
    (replays/moves.py); a store still down leaves them for the next run."""
    return move_pending().moved


@shared_task(name="workers.ping")
def ping_task() -> str:
    """A round trip through the broker and a worker, for readiness checks."""
    return "pong"
