"""A running match's action log so far, for spectators' live feeds (ARCHITECTURE §6, §8).

The runner writes it every so often while it plays (workers.runner.ProgressRecorder); the feed re-simulates it to
send the public events. It holds only action records (seat, choice, ms, fault), never a seat's view.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from tournaments.models import Match


class MatchProgress(models.Model):
    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="progress")
    attempt = models.PositiveIntegerField(default=0, help_text="the match attempt these actions belong to")
    actions = models.JSONField(default=list, help_text="the decision records played so far")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"progress of match {self.match_id}: {len(self.actions)} action(s)"


def save_progress(match_id: int, attempt: int, actions: list[dict[str, Any]]) -> None:
    """Replace the stored progress of the match with these actions."""
    MatchProgress.objects.update_or_create(match_id=match_id, defaults={"attempt": attempt, "actions": actions})


def live_actions(match: Match) -> list[dict[str, Any]]:
    """The actions recorded so far for a running match (empty when none were written yet)."""
    actions = MatchProgress.objects.filter(match_id=match.pk).values_list("actions", flat=True).first()
    return list(actions or [])
