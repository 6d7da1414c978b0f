"""A match analysis on a real Celery worker (docs/analysis.md#work-on-the-workers): sent below every match, run in
turns by the worker, finished with every decision of the seat analysed."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import redis
from django.conf import settings
from rest_framework.test import APIClient

from replays.models import Analysis
from tournaments.builtins import ensure_builtin
from tournaments.models import Ladder, Match
from tournaments.new_matches import create_match
from workers.broker import queue_key
from workers.runner import run_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]


def short_evolution(alice: Any) -> Match:
    ladder = Ladder.objects.create(name="evolution short", game="evolution", players_per_match=2, created_by=alice,
                                   options={"deck": "short"})
    match = create_match(ladder, [ensure_builtin("greedy"), ensure_builtin("random")], 8)
    assert run_match(match.pk) == "finished"
    return match


def test_the_task_waits_at_the_lowest_priority(alice: Any, celery_broker_url: str) -> None:
    """Priority 9, below new matches (6): a worker takes every queued match first. (Before this module's worker
    starts, so that the message waits to be looked at.)"""
    from replays.analysis_jobs import send

    match = short_evolution(alice)
    row = Analysis.objects.create(match=match, seat=0, bot="greedy", games=1, seed=1, total=1)
    settings.CELERY_BROKER_URL = celery_broker_url
    client = redis.Redis.from_url(celery_broker_url)
    key = queue_key(settings.CELERY_TASK_DEFAULT_QUEUE, 9)
    try:
        send(row.pk)
        waiting = [message for message in client.lrange(key, 0, -1) if b"workers.analyse_match" in message]
        assert len(waiting) == 1
    finally:
        for message in client.lrange(key, 0, -1):
            if b"workers.analyse_match" in message:
                client.lrem(key, 0, message)
        settings.CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL")


def test_an_analysis_is_sent_below_the_matches_and_a_worker_runs_it_to_the_end(
        alice: Any, celery_worker_process: Any, wait_until: Callable[..., Any]) -> None:
    match = short_evolution(alice)
    client = APIClient()
    client.force_authenticate(alice)
    answer = client.post(f"/api/matches/{match.pk}/analysis/", {"seat": 2, "games": 1}, format="json")
    assert answer.status_code == 202, answer.content
    row = Analysis.objects.get(pk=answer.json()["id"])

    def done() -> bool:
        row.refresh_from_db()
        return row.status in (Analysis.Status.FINISHED, Analysis.Status.FAILED)

    wait_until(done, 600, "the analysis to finish")
    assert row.status == Analysis.Status.FINISHED, row.error
    assert len(row.steps) == row.total > 0 and {entry["seat"] for entry in row.steps} == {1}
    read = client.get(f"/api/matches/{match.pk}/analysis/").json()["analyses"][0]
    assert read["done"] == read["total"] and read["decisions_per_minute"] > 0
    assert row.lease_until is None  # dropped once finished
