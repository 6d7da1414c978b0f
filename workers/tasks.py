"""Thin Celery tasks: they take ids and call the services, which are safe to run twice."""

from __future__ import annotations

from typing import Any

import django
from django.apps import apps

if not apps.ready:
    django.setup()  # the tasks import models; a worker may load this module before Celery's Django fix-up runs

from workers.celery import app  # noqa: E402
from workers.runner import run_match  # noqa: E402


@app.task(name="workers.run_match")
def run_match_task(match_id: int) -> str:
    return run_match(match_id)


@app.task(name="workers.requeue_expired")
def requeue_expired_task() -> int:
    """Beat, the reaper: requeue matches whose lease expired, and re-send queued ones whose message was lost."""
    from tournaments.services import redispatch_queued, requeue_expired

    return requeue_expired() + redispatch_queued()


@app.task(name="workers.validate_version", bind=True, max_retries=5, default_retry_delay=30)
def validate_version_task(self: Any, version_id: int) -> str:
    """The smoke match of a new bot version; a sandbox failure (not the bot's) is retried."""
    from workers.validation import ValidationUnavailable, validate_version

    try:
        return validate_version(version_id)
    except ValidationUnavailable as exc:
        raise self.retry(exc=exc) from exc


@app.task(name="workers.revalidate_stale")
def revalidate_stale_task() -> int:
    from tournaments.bot_lifecycle import revalidate_stale

    return revalidate_stale()


@app.task(name="workers.flag_faulty_bots")
def flag_faulty_bots_task() -> int:
    from tournaments.bot_lifecycle import flag_faulty_bots

    return flag_faulty_bots()


@app.task(name="workers.schedule_ladders")
def schedule_ladders_task() -> int:
    """Beat: top every unpaused ladder up to its bound of queued matches, chosen by rating."""
    from tournaments.ladders import schedule_ladders

    return schedule_ladders()


@app.task(name="workers.advance_tournaments")
def advance_tournaments_task() -> int:
    """Beat: the safety net for a worker that died between recording a result and advancing its tournament."""
    from tournaments.progress import advance_running_tournaments

    return advance_running_tournaments()


@app.task(name="workers.ping")
def ping_task() -> str:
    """A round trip through the broker and a worker, for readiness checks."""
    return "pong"
