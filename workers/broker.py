"""What the broker holds: which match ids have a message in Redis, queued or delivered to a worker still on it, and
which tasks wait in a queue (beat sends no housekeeping task that is still waiting, workers/beat.py).

The lost-message finder (tournaments.services.redispatch_lost) asks this instead of guessing from age, so a long
backlog is never sent twice. It reads kombu's Redis layout: a list per queue and priority (`<queue>`,
`<queue>\\x06\\x16<priority>`), and the `unacked` hash with its `unacked_index` of delivery times. The lists are
read before the hash, so a message moving from one to the other in between is still seen. Why this reads kombu's
layout rather than Celery's public API, which cannot list a queue's messages:
docs/architecture.md#lost-and-duplicate-messages.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterable
from typing import Any, cast

from django.conf import settings
from kombu.transport.redis import Channel

logger = logging.getLogger(__name__)

RUN_MATCH = "workers.run_match"
# The layout's names as kombu's Redis channel sets them (its defaults; this deployment overrides none), not copies.
SEP, PRIORITY_STEPS = Channel.sep, Channel.priority_steps
UNACKED, UNACKED_INDEX = Channel.unacked_key, Channel.unacked_index_key


def live_match_ids() -> set[int] | None:
    """Match ids with a live message on the broker; None when the broker is not Redis (age alone then decides).

    A delivered message counts while its delivery is younger than the lease: a live worker claims at once (or holds
    a retry for less than that), so an older one sits with a worker that died with it.
    """
    url = settings.CELERY_BROKER_URL or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    import redis

    client = redis.Redis.from_url(url, socket_timeout=10)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    queued = [raw for key in queue_keys(queue) for raw in client.lrange(key, 0, -1)]
    fresh_after = time.time() - settings.LUDUS_LEASE_SECONDS
    delivered = client.hgetall(UNACKED)
    scores = cast(list[tuple[bytes | str, float]], client.zrange(UNACKED_INDEX, 0, -1, withscores=True))
    delivered_at = dict(scores)
    fresh = [json.loads(value) for tag, value in delivered.items() if delivered_at.get(tag, 0.0) >= fresh_after]
    # The hash is shared by every queue on this Redis database: only this deployment's match queue counts.
    ours = [message for message, _exchange, routing_key in fresh if routing_key == queue]
    return set(match_ids_of(queued)) | set(match_ids_of(ours))


def waiting_tasks(url: str, queue: str) -> set[str]:
    """The task names of the messages waiting in a queue (not yet delivered to a worker)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=10)
    names = set()
    for raw in (raw for key in queue_keys(queue) for raw in client.lrange(key, 0, -1)):
        try:
            names.add(str(json.loads(raw)["headers"]["task"]))
        except (ValueError, KeyError, TypeError):
            logger.warning("a broker message could not be read; ignoring it", exc_info=True)
    return names


def queue_keys(queue: str) -> list[str]:
    """The Redis lists of one queue, highest priority first (kombu pops them in this order)."""
    return [queue_key(queue, p) for p in PRIORITY_STEPS]


def queue_key(queue: str, priority: int) -> str:
    """The Redis list holding a queue's messages of one priority step (0, the highest, is the queue's own name)."""
    return f"{queue}{SEP}{priority}" if priority else queue


def match_ids_of(messages: Iterable[Any]) -> Iterable[int]:
    """The match id of each run_match message (kombu's JSON envelope, raw or parsed); others are skipped."""
    for message in messages:
        try:
            payload = json.loads(message) if isinstance(message, (bytes, str)) else message
            if payload.get("headers", {}).get("task") != RUN_MATCH:
                continue
            body = payload["body"]
            if payload.get("properties", {}).get("body_encoding") == "base64":
                body = base64.b64decode(body)
            yield int(json.loads(body)[0][0])
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            logger.warning("dispatch: a broker message could not be read; ignoring it", exc_info=True)
