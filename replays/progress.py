"""A running match's action log so far, for spectators' live feeds (ARCHITECTURE §6, §8).

The runner writes it every so often while it plays (workers.runner.ProgressRecorder); the feed re-simulates it to
send the public events. It holds only action records (seat, choice, ms, fault), never a seat's view.
"""

from __future__ import annotations

from typing import Any

from django.db import models, transaction
from django.utils import timezone

from tournaments.models import Match


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
    """The actions recorded so far for a running match (empty when none were written yet)."""
    actions = MatchProgress.objects.filter(match_id=match.pk).values_list("actions", flat=True).first()
    return list(actions or [])
