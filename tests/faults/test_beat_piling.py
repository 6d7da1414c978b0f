"""Beat's housekeeping tasks never pile up on the control queue: while no worker takes them (each one busy with a
long match), a task already waiting there is not sent again; once it is taken, the next is sent. Beat's own
scheduler code (workers/beat.py) on the real broker."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from testkit import clear_queues

from config.celery import app
from workers.beat import LockedScheduler
from workers.broker import queue_keys

pytestmark = pytest.mark.integration


def control_queue() -> str:
    return f"{settings.CELERY_TASK_DEFAULT_QUEUE}.control"


def waiting(url: str) -> Counter[str]:
    store = redis.Redis.from_url(url)
    raw = [message for key in queue_keys(control_queue()) for message in store.lrange(key, 0, -1)]
    return Counter(json.loads(message)["headers"]["task"] for message in raw)


def test_a_beat_task_still_waiting_is_not_sent_again(celery_broker_url: str, tmp_path: Path) -> None:
    clear_queues(celery_broker_url, [control_queue()])
    app.conf.broker_url = celery_broker_url
    scheduler: Any = LockedScheduler(app=app, schedule_filename=str(tmp_path / "schedule"))
    entries = [entry for entry in scheduler.schedule.values() if entry.task.startswith("workers.")]
    try:
        for _ in range(5):  # five ticks' worth, with no worker taking any
            for entry in entries:
                scheduler.apply_entry(entry)
        assert waiting(celery_broker_url) == Counter({entry.task: 1 for entry in entries})
        redis.Redis.from_url(celery_broker_url).delete(*queue_keys(control_queue()))  # a worker took them all
        for entry in entries:
            scheduler.apply_entry(entry)
        assert waiting(celery_broker_url) == Counter({entry.task: 1 for entry in entries})
    finally:
        scheduler.close()
        clear_queues(celery_broker_url, [control_queue()])
