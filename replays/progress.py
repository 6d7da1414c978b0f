"""A running match's action log so far, for spectators' live feeds (docs/architecture.md#replays).

The runner writes it every so often while it plays (workers.runner.ProgressRecorder), and only while somebody
watches: every read of a running match's progress (the live feed, the viewer's pages, the live frames) marks the
match as watched for WATCH_SECONDS, in the cache. A match nobody follows costs one cache read a second and no
database write; a viewer who arrives sees the actions so far within a second. The marks need a cache that the web
processes and the workers share (Redis, CACHE_URL); without one (a per-process memory cache) the runner cannot see
them and writes regardless. The feed re-simulates the progress to send the public events. It holds only action
records (seat, choice, ms, fault), never a seat's view; once the match ends, its replay is the record.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import models, transaction
from django.utils import timezone

from tournaments.models import Match

logger = logging.getLogger(__name__)
WATCH_SECONDS = 60  # how long one read of a running match's progress keeps it watched


def _watch_key(match_id: int) -> str:
    return f"ludus:watched:{match_id}"


def marks_are_shared() -> bool:
    """Whether a watch mark set by a web process reaches the runner: the cache is Redis (CACHE_URL)."""
    return str(settings.CACHES["default"]["BACKEND"]).endswith("RedisCache")


def mark_watched(match_id: int) -> None:
    """Somebody reads the match's live progress: the runner keeps it current for WATCH_SECONDS. Best effort: a
    cache that is down costs the viewer nothing but freshness."""
    try:
        cache.set(_watch_key(match_id), 1, WATCH_SECONDS)
    except Exception:  # the cache's own errors differ by backend (redis.ConnectionError, OSError...)
        logger.warning("marking match %s as watched failed", match_id, exc_info=True)


def is_watched(match_id: int) -> bool:
    """Whether the runner should write the match's progress now: somebody read it lately, or the runner cannot
    know (no shared cache, or the cache is down)."""
    if not marks_are_shared():
        return True
    try:
        return cache.get(_watch_key(match_id)) is not None
    except Exception:
        logger.warning("reading the watch mark of match %s failed", match_id, exc_info=True)
        return True



class MatchProgress(models.Model):
    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="progress")
    attempt = models.PositiveIntegerField(default=0, help_text="the match attempt these actions belong to")
    actions = models.JSONField(default=list, help_text="the decision records played so far")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"progress of match {self.match_id}: {len(self.actions)} action(s)"


def save_progress(match_id: int, attempt: int, actions: list[dict[str, Any]], owner: str | None = None) -> bool:
    """Replace the stored progress of the match with these actions; False when fenced off.

    With owner (the runner), only while owner holds the running match's lease: a runner that lost it (a thawed
    zombie) neither updates nor re-creates the row of a match another runner has since finished or failed.
    """
    if owner is None:
        MatchProgress.objects.update_or_create(match_id=match_id, defaults={"attempt": attempt, "actions": actions})
        return True
    held = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_owner=owner)
    if MatchProgress.objects.filter(match_id=match_id, match__in=held).update(
            attempt=attempt, actions=actions, updated_at=timezone.now()):
        return True
    with transaction.atomic():  # the first write of an attempt: the match row's lock orders it with the result
        if not held.select_for_update().exists():
            return False
        MatchProgress.objects.update_or_create(match_id=match_id, defaults={"attempt": attempt, "actions": actions})
    return True


def live_actions(match: Match) -> list[dict[str, Any]]:
    """The actions recorded so far for a running match (empty when none were written yet); marks it watched."""
    mark_watched(match.pk)
    actions = MatchProgress.objects.filter(match_id=match.pk).values_list("actions", flat=True).first()
    return list(actions or [])
