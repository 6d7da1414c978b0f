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
