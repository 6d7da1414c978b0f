"""Beat's housekeeping and validation have queues of their own, so neither waits behind a backlog of matches.

A real worker (one process, prefetch 1) starts against a broker that already holds a backlog of tasks on the match
queue, then a reaper run and a validation on theirs. It must take both long before it reaches the end of the
backlog: it consumes its queues in turn rather than the match queue first.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from testkit import clear_queues, queue_names, start_celery_worker, stop_process, subprocess_env, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
BACKLOG = 40


def test_the_reaper_and_validation_do_not_wait_behind_a_backlog_of_matches(celery_broker_url: str,
                                                                           tmp_path: Any) -> None:
    import redis

    from config.celery import app

    client = redis.Redis.from_url(celery_broker_url)
    queue, control, validation = queue_names()  # this xdist worker's own, emptied before the backlog goes in
    clear_queues(celery_broker_url)
    with app.connection_for_write(url=celery_broker_url) as connection, app.producer_or_acquire(
            app.amqp.Producer(connection)) as producer:
        for _ in range(BACKLOG):
            app.send_task("workers.ping", producer=producer)  # stands in for queued matches
        app.send_task("workers.requeue_expired", producer=producer)
        app.send_task("workers.validate_version", args=[987654321], producer=producer)  # no such version
    assert [client.llen(name) for name in (queue, control, validation)] == [BACKLOG, 1, 1]

    log_path = tmp_path / "worker.log"
    worker = start_celery_worker(f"ludus-queues-{os.getpid()}", subprocess_env(CELERY_BROKER_URL=celery_broker_url),
                                 log_path, extra=("--prefetch-multiplier=1", "--without-heartbeat"))
    try:
        wait_until(lambda: client.llen(queue) == 0 or worker.poll() is not None, 120, "the worker to drain the queue")
        assert worker.poll() is None, log_path.read_text()[-3000:]
    finally:
        stop_process(worker)
    received = re.findall(r"Task (workers\.\w+)\[[^\]]+\] received", log_path.read_text())
    assert received.count("workers.ping") == BACKLOG, received
    for name in ("workers.requeue_expired", "workers.validate_version"):
        assert name in received, f"{name} never ran: {received}"
        assert received.index(name) < BACKLOG // 2, f"{name} waited behind the backlog: {received}"
