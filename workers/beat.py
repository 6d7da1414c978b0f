"""Beat's scheduler, made safe to run twice: only the beat that holds a lease in Redis sends anything.

Beat scaled by mistake (`docker compose up --scale beat=2`, two Deployments, a pod left over by a rolling update)
would send every housekeeping task twice: two reapers, two ladder schedulers. The tasks are safe to run twice, but
the doubled load and the confusing logs are not wanted, so a second beat waits as a standby. The lease is a Redis
lock with a time-to-live on the broker (redis-py's Lock, token-checked in Lua), renewed on every tick: a beat that
is stopped releases it at once, and one that is killed or cut off loses it after LUDUS_BEAT_LOCK_SECONDS, when a
standby takes over. Settings: CELERY_BEAT_SCHEDULER points here.

A housekeeping task that still waits on the control queue (every worker busy with a long match) is not sent again:
one waiting reaper does the work of any number, and they would pile up (scheduler.apply_entry). Celery's `expires`
would not do: an expired message stays in the queue until a worker takes it to discard it.

Each tick also touches `<schedule file>.alive`, which the container healthchecks read (docker-compose.yml, deploy/).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import redis
from celery.beat import PersistentScheduler
from django.conf import settings
from redis.exceptions import LockError, RedisError

from workers.broker import waiting_tasks

logger = logging.getLogger(__name__)


class BeatLease:
    """The one-beat lease: `hold()` takes or renews it and says whether this beat may send."""

    def __init__(self, url: str, name: str, seconds: int) -> None:
        self.seconds = seconds
        self._lock = redis.Redis.from_url(url, socket_timeout=seconds / 3).lock(
            name, timeout=seconds, thread_local=False)
        self.held = False

    def hold(self) -> bool:
        try:
            self._renew_or_take()
        except RedisError:
            logger.warning("beat: the lease's Redis is unreachable; sending nothing until it answers", exc_info=True)
            self._set(False)
        return self.held

    def release(self) -> None:
        try:
            if self.held:
                self._lock.release()
        except (LockError, RedisError):  # already expired or taken over: nothing of ours to release
            pass
        self.held = False

    def _renew_or_take(self) -> None:
        if self.held:
            try:
                self._lock.reacquire()  # back to the full time-to-live, only if the token is still ours
                return
            except LockError:
                self._set(False)
        self._set(self._lock.acquire(blocking=False))

    def _set(self, held: bool) -> None:
        if held != self.held:
            logger.warning("beat: %s the one-beat lease", "took" if held else "lost")
        self.held = held


class LockedScheduler(PersistentScheduler):
    """celery.beat's persistent scheduler, sending only while it holds the BeatLease."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name = f"{settings.CELERY_TASK_DEFAULT_QUEUE}.beat-lease"
        self.lease = BeatLease(self.app.conf.broker_url, name, settings.LUDUS_BEAT_LOCK_SECONDS)
        # PersistentScheduler.__init__ sets schedule_filename; celery-types does not declare it.
        self.alive = Path(f"{self.schedule_filename}.alive")  # type: ignore[attr-defined]

    def tick(self, *args: Any, **kwargs: Any) -> float:
        self.alive.touch()
        renew_every = self.lease.seconds / 3  # two missed renewals still leave the lease in place
        if not self.lease.hold():
            return renew_every
        return min(super().tick(*args, **kwargs), renew_every)

    def apply_entry(self, entry: Any, producer: Any = None) -> None:
        queue = (settings.CELERY_TASK_ROUTES.get(entry.task) or {}).get("queue")
        if queue is not None and entry.task in self._waiting(queue):
            logger.info("beat: %s is still waiting on %s; not sent again", entry.task, queue)
            return
        super().apply_entry(entry, producer)

    def _waiting(self, queue: str) -> set[str]:
        url = self.app.conf.broker_url or ""
        if not url.startswith(("redis://", "rediss://", "unix://")):
            return set()
        try:
            return waiting_tasks(url, queue)
        except RedisError:  # unreadable now: send, as beat always did (a pile is better than a missed reaper)
            logger.warning("beat: could not read %s; sending anyway", queue, exc_info=True)
            return set()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.lease.release()
