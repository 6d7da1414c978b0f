"""Thin Celery tasks: they take ids and call the services, which are safe to run twice."""

from __future__ import annotations

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
    from tournaments.services import requeue_expired

    return requeue_expired()


@app.task(name="workers.ping")
def ping_task() -> str:
    """A round trip through the broker and a worker, for readiness checks."""
    return "pong"
