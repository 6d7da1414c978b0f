from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from replays.models import Replay
from replays.storage import ReplayUnavailable
from replays.store import drop_progress
from replays.verify import ReplayMismatch, verify_document
from tournaments import admin as tournaments_admin
from tournaments.models import Match

admin.site.unregister(Match)


@admin.register(Match)
class MatchAdmin(tournaments_admin.MatchAdmin):
    """tournaments' match admin, whose cancel also drops the match's live progress (replays' row, which tournaments
    cannot name: docs/architecture.md#four-packages-one-direction)."""

    def attempt_ended(self, match_id: int) -> None:
        drop_progress(match_id)


@admin.register(Replay)
class ReplayAdmin(admin.ModelAdmin):
    list_display = ("match", "format_version", "size", "pending", "verification", "created_at")
    list_filter = ("format_version", "pending", "verification", "match__game")
    search_fields = ("=match__id", "match__tournament__name")
    readonly_fields = ("match", "format_version", "header", "footer", "size", "digest", "location", "pending",
                       "verification", "verify_error", "created_at")
    exclude = ("actions",)
    actions = ["verify_replays"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # replays are written only by the runner, with their match's result

    @admin.action(description="Verify the selected replays by re-simulation")
    def verify_replays(self, request: HttpRequest, queryset: QuerySet[Replay]) -> None:
        bad = []
        for replay in queryset:
            try:
                verify_document(replay.document())
            except (ReplayMismatch, ReplayUnavailable) as exc:  # a digest mismatch is a ReplayMismatch
                bad.append(f"match {replay.match_id}: {exc}")
        self.message_user(request, "; ".join(bad) if bad else f"{queryset.count()} replay(s) verified.")
