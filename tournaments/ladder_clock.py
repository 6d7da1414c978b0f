"""The ladders' clock (docs/tournaments.md#ladders): whoever tops the ladders up on a schedule, beat's
`workers.schedule_ladders` or the demo's own clock thread, does it through `scheduled_round`, which records when the
next round comes; the ladder page says so. The record is in the cache and expires after a few periods, so a clock
that stops is soon not announced (several web processes share it through CACHE_URL)."""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections

from tournaments.ladders import schedule_ladders

KEY = "ludus:ladders:next-round"
logger = logging.getLogger(__name__)


def period() -> float:
    """Seconds between rounds: beat's schedule-ladders entry (LUDUS_LADDER_SECONDS)."""
    every = settings.CELERY_BEAT_SCHEDULE["schedule-ladders"]["schedule"]
    assert isinstance(every, int | float), every  # seconds, from LUDUS_LADDER_SECONDS
    return float(every)


def scheduled_round() -> int:
    """Top every unpaused ladder up now and record when the next round comes; return how many matches were made."""
    made = schedule_ladders()
    cache.set(KEY, time.time() + period(), timeout=3 * period())
    return made


def next_round() -> datetime | None:
    """When the clock's next round comes, if a clock ran lately."""
    at = cache.get(KEY)
    return datetime.fromtimestamp(at, tz=UTC) if at else None


def start_clock() -> threading.Event:
    """A daemon thread that plays beat's part for the ladders in this process (the demo: no beat without a broker),
    one round every period; set the returned event to stop it."""
    stop = threading.Event()

    def tick() -> None:
        while True:
            try:
                scheduled_round()
            except Exception:  # one bad round (a locked database) must not stop the clock
                logger.exception("the ladders' round failed; the next comes in %.0f s", period())
            finally:
                close_old_connections()
            if stop.wait(period()):
                return

    threading.Thread(target=tick, name="ladder-clock", daemon=True).start()
    return stop
