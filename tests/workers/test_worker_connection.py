"""A Celery worker keeps its database connection from task to task (settings.CELERY_DB_REUSE_MAX): Celery's Django
fix-up would close it after each one, and every match would connect anew (docs/scaling.md section 1). One that the
database cut is replaced before the next task (config/celery.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from testkit import clear_queues, ping_workers, start_celery_worker, stop_process, subprocess_env, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

TASK = "workers.advance_tournaments"  # a task that reads the database and leaves it as it was


def backends() -> set[tuple[Any, ...]]:
    """The other connections to this database: each one's server process and when it started."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, backend_start FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid()")
        return set(cursor.fetchall())


def outcomes(log_path: Path) -> list[str]:
    """How each task the worker finished ended, in order: "succeeded" or "raised"."""
    return re.findall(rf"Task {re.escape(TASK)}\[[^\]]+\] (succeeded|raised)", log_path.read_text())


def run_task(worker: Any, log_path: Path, count: int) -> str:
    """Send the task, wait until the worker has finished it (the count-th task), and say how it ended."""
    from config.celery import app

    app.send_task(TASK)
    wait_until(lambda: len(outcomes(log_path)) >= count or worker.poll() is not None, 120,
               f"the worker to finish task {count}")
    assert worker.poll() is None, log_path.read_text()[-3000:]
    return outcomes(log_path)[count - 1]


def test_a_worker_keeps_its_database_connection_and_replaces_one_that_was_cut(celery_broker_url: str,
                                                                              tmp_path: Path) -> None:
    clear_queues(celery_broker_url)
    log_path = tmp_path / "worker.log"
    name = f"ludus-connection-{os.getpid()}"
    worker = start_celery_worker(name, subprocess_env(CELERY_BROKER_URL=celery_broker_url), log_path)
    try:
        wait_until(lambda: worker.poll() is not None or ping_workers([name]), 90, "the worker to answer")
        before = backends()
        assert run_task(worker, log_path, 1) == "succeeded"
        kept = backends() - before
        assert kept, "the worker closed its connection after the task"
        assert run_task(worker, log_path, 2) == "succeeded"
        assert backends() - before == kept  # the same connection served the second task
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [next(iter(kept))[0]])
        run_task(worker, log_path, 3)  # on the cut connection: it may fail, the next one must not
        assert run_task(worker, log_path, 4) == "succeeded"
        renewed = backends() - before
        assert len(renewed) == 1 and renewed != kept  # a new connection, kept in turn
    finally:
        stop_process(worker)
        clear_queues(celery_broker_url)
