"""One stored replay per match: the header and footer as JSON, the action log compressed
(docs/architecture.md#replays)."""

from __future__ import annotations

from typing import Any

from django.db import models

from replays import format as replay_format
from replays import storage
from tournaments.models import Match


class Replay(models.Model):
    """The header and footer in the database; the action log in the replay store (replays/storage.py), found by its
    key and checked against its digest, or still in the database: a replay written before the store, or one the
    store did not take when its result was written (pending, until housekeeping moves it).

    The runner records a result with its replay `verifying`; a verification task re-simulates it after the match
    and marks it `verified`, or `mismatch` with the reason, its result reverted (replays/verification.py,
    docs/architecture.md#replays)."""

    class Verification(models.TextChoices):
        VERIFYING = "verifying"
        VERIFIED = "verified"
        MISMATCH = "mismatch"

    # OneToOne makes "one result per match" a database fact: a second insert raises IntegrityError.
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="replay")
    format_version = models.PositiveSmallIntegerField(default=replay_format.FORMAT_VERSION)
    header = models.JSONField()
    actions = models.BinaryField(null=True, blank=True, help_text="gzip-compressed canonical JSON list of decision "
                                 "records, while in the database (none once in the replay store)")
    digest = models.CharField(max_length=64, blank=True, default="",
                              help_text="sha256 of the compressed action log, checked on every read")
    location = models.CharField(max_length=200, blank=True, default="",
                                help_text="the action log's key in the replay store; empty: in the database")
    pending = models.BooleanField(default=False, help_text="the store did not take the action log when the result "
                                  "was written: housekeeping moves it there")
    footer = models.JSONField()
    verification = models.CharField(max_length=10, choices=Verification.choices, default=Verification.VERIFYING,
                                    help_text="verifying until re-simulated after the match (replays/verification.py)")
    verify_error = models.TextField(blank=True, default="", help_text="why the replay did not verify (mismatch)")
    size = models.PositiveIntegerField(default=0, help_text="bytes of the compressed action log")
    created_at = models.DateTimeField(auto_now_add=True)

    # What action_log() reads, for querysets that load only some fields.
    ACTION_LOG_FIELDS = ("actions", "digest", "location")

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["id"], condition=models.Q(pending=True), name="replay_pending"),
                   models.Index(fields=["created_at"], condition=models.Q(verification="verifying"),
                                name="replay_verifying")]

    def __str__(self) -> str:
        return f"replay of match {self.match_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.location:  # in the database: its size and digest are the bytes'
            data = bytes(self.actions or b"")
            self.size, self.digest = len(data), storage.digest_of(data)
        super().save(*args, **kwargs)

    def raw_bytes(self) -> bytes:
        """The compressed action log, from the store or the database; raises storage.ReplayDigestMismatch when the
        bytes are not the recorded ones, storage.ReplayUnavailable when the store does not answer."""
        if self.location:
            return storage.read_file(self.location, self.digest)
        if self.actions is None:
            raise storage.ReplayUnavailable(f"{self} has neither a key in the store nor bytes in the database")
        data = bytes(self.actions)
        # A row from before the store has no digest until move_replays gives it one.
        return storage.check_digest(data, self.digest, f"{self}, in the database") if self.digest else data

    def action_log(self) -> list[dict[str, Any]]:
        """The decoded action log: the one accessor every reader goes through (raises as raw_bytes)."""
        return replay_format.decode_actions(self.raw_bytes())

    def document(self) -> dict[str, Any]:
        """The whole replay as one plain document (header, actions, footer)."""
        return {"header": self.header, "actions": self.action_log(), "footer": self.footer}

    @classmethod
    def from_document(cls, match: Match, document: dict[str, Any], placed: storage.Placement | None = None) -> Replay:
        """The replay of a document, its action log where placed says (storage.place): in the store, or in the
        database and pending; without placed, in the database (a replay made outside the runner)."""
        data = placed.data if placed else replay_format.encode_actions(document["actions"])
        replay = cls(match=match, header=document["header"], footer=document["footer"], size=len(data),
                     digest=placed.digest if placed else storage.digest_of(data))
        if placed and placed.key:
            replay.location = placed.key
        else:
            replay.actions, replay.pending = data, placed is not None
        return replay


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
