"""One stored replay per match: the header and footer as JSON, the action log compressed
(docs/architecture.md#replays)."""

from __future__ import annotations

from typing import Any

from django.db import models

from replays import format as replay_format
from tournaments.models import Match


class Replay(models.Model):
    # OneToOne makes "one result per match" a database fact: a second insert raises IntegrityError.
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="replay")
    format_version = models.PositiveSmallIntegerField(default=replay_format.FORMAT_VERSION)
    header = models.JSONField()
    actions = models.BinaryField(help_text="gzip-compressed canonical JSON list of decision records")
    footer = models.JSONField()
    size = models.PositiveIntegerField(default=0, help_text="bytes of the compressed action log")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"replay of match {self.match_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.size = len(bytes(self.actions))
        super().save(*args, **kwargs)

    def action_log(self) -> list[dict[str, Any]]:
        return replay_format.decode_actions(bytes(self.actions))

    def document(self) -> dict[str, Any]:
        """The whole replay as one plain document (header, actions, footer)."""
        return {"header": self.header, "actions": self.action_log(), "footer": self.footer}

    @classmethod
    def from_document(cls, match: Match, document: dict[str, Any]) -> Replay:
        return cls(
            match=match,
            header=document["header"],
            actions=replay_format.encode_actions(document["actions"]),
            footer=document["footer"],
        )


from replays.progress import MatchProgress  # noqa: E402,F401  (registered with the replays app)


class Analysis(models.Model):
    """A move-by-move analysis of one seat of a finished match by one built-in bot (docs/analysis.md): one row per
    (match, seat, bot, games), so a second request is answered from it. `steps` holds each analysed decision's
    result in step order, appended as the work goes, so a stopped analysis resumes where it stood."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="analyses")
    seat = models.PositiveSmallIntegerField(help_text="the seat analysed, counted from 0 as in the action log")
    bot = models.CharField(max_length=40, help_text="the built-in bot that plays the playouts")
    games = models.PositiveSmallIntegerField(help_text="playouts per option")
    seed = models.BigIntegerField(help_text="the seed the playouts' futures and bots derive from")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0, help_text="decisions to analyse")
    steps = models.JSONField(default=list, help_text="each analysed decision's result, in step order")
    seconds = models.FloatField(default=0.0, help_text="worker time spent so far")
    error = models.TextField(blank=True, default="")
    lease_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["match", "seat", "bot", "games"], name="one_analysis_per_ask")]

    def __str__(self) -> str:
        return f"analysis of match {self.match_id} seat {self.seat + 1} by {self.bot}"
