"""The admin: every model with filters and search; match cancel/requeue, version retire, tournament start and
cancel, ladder pause and resume, and a check of ratings against match history."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from tournaments import services
from tournaments.admin_uploads import BotVersionUploadForm
from tournaments.advancement import cancel_tournament, withdraw_entry
from tournaments.models import Bot, BotVersion, Entry, Ladder, LadderEntry, Match, Rating, Seat, Tournament
from tournaments.ratings import rating_differences
from tournaments.scheduling import start_tournament
from tournaments.visibility import new_seed


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    fields = ("number", "status", "builtin", "filename", "size", "sha256", "created_at")
    readonly_fields = ("size", "sha256", "created_at")
    extra = 0
    show_change_link = True


class FlaggedFilter(admin.SimpleListFilter):
    title = "flagged"
    parameter_name = "flagged"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "flagged"), ("no", "not flagged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Bot]) -> QuerySet[Bot]:
        if self.value() == "yes":
            return queryset.exclude(flagged_reason="")
        if self.value() == "no":
            return queryset.filter(flagged_reason="")
        return queryset


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "game", "visibility", "flagged_reason", "created_at")
    list_filter = ("game", "visibility", FlaggedFilter)
    search_fields = ("name", "owner__username", "description")
    readonly_fields = ("flagged_reason", "flagged_at")
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "bot", "number", "status", "builtin", "size", "created_at")
    list_filter = ("status", "bot__game")
    search_fields = ("bot__name", "bot__owner__username", "sha256", "filename")
    readonly_fields = ("bot", "number", "filename", "builtin", "sha256", "size", "created_at", "log")
    exclude = ("source", "validation_log")  # bytes: shown by size and hash; a version's source never changes
    actions = ["retire_versions"]
    add_form = BotVersionUploadForm

    @admin.display(description="validation log")
    def log(self, obj: BotVersion) -> str:
        return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', obj.validation_log or "(none yet)")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        """Adding a version means uploading one: through upload_bot_version, never by editing fields."""
        if obj is None:
            kwargs["form"] = self.add_form
            kwargs["fields"] = list(self.add_form.base_fields)
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return [(None, {"fields": list(self.add_form.base_fields),
                            "description": "The upload is checked, stored as the bot's next version and validated "
                                           "by a smoke match in the sandbox; the version's page shows the log."})]
        return super().get_fieldsets(request, obj)

    def save_form(self, request: HttpRequest, form: Any, change: bool) -> Any:
        return form.upload() if not change else super().save_form(request, form, change)

    def save_model(self, request: HttpRequest, obj: BotVersion, form: Any, change: bool) -> None:
        if change:  # an added version was stored by form.upload()
            super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        if change:
            super().save_related(request, form, formsets, change)

    def response_add(self, request: HttpRequest, obj: BotVersion, post_url_continue: str | None = None) -> Any:
        self.message_user(request, f"Uploaded {obj.label}: {obj.status}. Its validation log is below.")
        return HttpResponseRedirect(reverse("admin:tournaments_botversion_change", args=[obj.pk]))

    @admin.action(description="Retire the selected versions")
    def retire_versions(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        count = queryset.exclude(status=BotVersion.Status.RETIRED).update(status=BotVersion.Status.RETIRED)
        self.message_user(request, f"Retired {count} version(s).")


def _check_ratings(admin_: admin.ModelAdmin, request: HttpRequest, competitions: QuerySet[Any], field: str) -> None:
    for competition in competitions:
        where = Q(**{f"{field}_id": competition.pk})
        problems = rating_differences(where, where)
        level = messages.ERROR if problems else messages.SUCCESS
        summary = "; ".join(problems[:3]) if problems else "ratings agree with match history"
        admin_.message_user(request, f"{competition}: {summary}", level)


class LadderEntryInline(admin.TabularInline):
    model = LadderEntry
    autocomplete_fields = ("bot_version",)
    fields = ("bot_version", "joined_at", "withdrawn_at")
    readonly_fields = ("joined_at",)
    extra = 2


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "players_per_match", "max_queued", "paused", "is_open", "created_at")
    list_filter = ("game", "paused", "is_open")
    list_editable = ("paused", "is_open")
    search_fields = ("name",)
    inlines = [LadderEntryInline]
    actions = ["pause_ladders", "resume_ladders", "check_ratings"]

    @admin.action(description="Pause the selected ladders (no new matches; queued ones still run)")
    def pause_ladders(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        self.message_user(request, f"Paused {queryset.update(paused=True)} ladder(s).")

    @admin.action(description="Resume the selected ladders")
    def resume_ladders(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        self.message_user(request, f"Resumed {queryset.update(paused=False)} ladder(s).")

    @admin.action(description="Check the ratings against a recomputation from match history")
    def check_ratings(self, request: HttpRequest, queryset: QuerySet[Ladder]) -> None:
        _check_ratings(self, request, queryset, "ladder")


class EntryFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        kept = [f for f in self.forms if f.cleaned_data and not f.cleaned_data.get("DELETE")]
        versions = [f.cleaned_data["bot_version"] for f in kept]
        players = self.instance.players_per_table or 0
        if len(versions) < players:
            raise ValidationError(f"a table of {players} needs at least {players} bots, got {len(versions)}")
        if len(set(versions)) != len(versions):
            raise ValidationError("each bot version may enter only once")


class EntryInline(admin.TabularInline):
    model = Entry
    formset = EntryFormSet
    autocomplete_fields = ("bot_version",)
    fields = ("bot_version", "withdrawn_at", "byes", "eliminated_round")
    readonly_fields = ("withdrawn_at", "byes", "eliminated_round")  # withdraw through progress.withdraw_entry
    extra = 4


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "format", "players_per_table", "games_per_set", "state", "current_round",
                    "created_at")
    list_filter = ("game", "format", "state")
    search_fields = ("name",)
    inlines = [EntryInline]
    actions = ["start_tournaments", "cancel_tournaments", "requeue_failed_matches", "check_ratings"]

    @admin.action(description="Cancel the selected tournaments (pending matches are cancelled)")
    def cancel_tournaments(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            try:
                count = cancel_tournament(tournament)
            except ValidationError as exc:
                self.message_user(request, f"{tournament}: {'; '.join(exc.messages)}", messages.ERROR)
            else:
                self.message_user(request, f"{tournament}: cancelled, with {count} pending match(es).")

    @admin.action(description="Requeue the failed matches of the selected tournaments (they wait on them)")
    def requeue_failed_matches(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            requeued = services.requeue_failed(tournament)
            self.message_user(request, f"{tournament}: {requeued} failed match(es) requeued.")

    @admin.action(description="Check the ratings against a recomputation from match history")
    def check_ratings(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        _check_ratings(self, request, queryset, "tournament")

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        # A new tournament's seed is unguessable unless staff choose one: its matches' decks derive from it.
        return {"seed": new_seed(), **super().get_changeform_initial_data(request)}

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change and obj.created_by_id is None:
            obj.created_by = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)

    @admin.action(description="Start the selected draft tournaments (schedule and enqueue their matches)")
    def start_tournaments(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset.filter(state=Tournament.State.DRAFT):
            try:
                matches = start_tournament(tournament)
            except ValidationError as exc:
                self.message_user(request, f"{tournament}: {'; '.join(exc.messages)}", messages.ERROR)
            else:
                self.message_user(request, f"{tournament}: {len(matches)} match(es) queued.")


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("number", "bot_version", "score", "rank", "faults", "forfeited",
              "rating_mu_before", "rating_mu_after", "rating_sigma_before", "rating_sigma_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "tournament", "ladder", "round", "status", "attempts", "rated", "short_error",
                    "created_at", "finished_at")
    list_filter = ("status", "game", "rated", "tournament")
    search_fields = ("=id", "tournament__name", "ladder__name", "error", "seats__bot_version__bot__name")
    readonly_fields = ("status", "attempts", "lease_owner", "lease_expires", "error", "created_at", "started_at",
                       "finished_at", "parent", "branch_step", "branch_force", "branch_resample")  # a branch's point
    inlines = [SeatInline]
    actions = ["cancel_matches", "requeue_matches"]

    @admin.display(description="error")
    def short_error(self, obj: Match) -> str:
        return obj.error.splitlines()[0][:80] if obj.error else ""

    @admin.action(description="Cancel the selected matches")
    def cancel_matches(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        count = sum(services.cancel_match(match, ended=self.attempt_ended) for match in queryset)
        self.message_user(request, f"Cancelled {count} match(es); finished ones are never changed.")

    def attempt_ended(self, match_id: int) -> None:
        """Called inside a cancel's transaction; replays/admin.py's MatchAdmin drops the live progress there."""

    @admin.action(description="Requeue the selected failed or cancelled matches")
    def requeue_matches(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        count = sum(services.requeue_match(match) for match in queryset)
        self.message_user(request, f"Requeued {count} match(es).")


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("match", "number", "bot_version", "score", "rank", "faults", "forfeited")
    list_filter = ("forfeited", "match__game")
    search_fields = ("bot_version__bot__name", "=match__id")
    raw_id_fields = ("match", "bot_version")


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot_version", "tournament", "ladder", "mu", "sigma", "conservative", "games", "wins",
                    "updated_at")
    list_filter = ("tournament", "ladder")
    search_fields = ("bot_version__bot__name",)


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("tournament", "bot_version", "withdrawn_at", "eliminated_round")
    list_filter = ("tournament",)
    search_fields = ("tournament__name", "bot_version__bot__name")
    actions = ["withdraw_entries"]

    @admin.action(description="Withdraw the selected entries (their queued matches are cancelled)")
    def withdraw_entries(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        for entry in queryset.select_related("tournament"):
            try:
                cancelled = withdraw_entry(entry.tournament, entry.bot_version_id)
            except ValidationError as exc:
                self.message_user(request, f"{entry}: {'; '.join(exc.messages)}", messages.ERROR)
            else:
                self.message_user(request, f"{entry}: withdrawn; {cancelled} queued match(es) cancelled.")


@admin.register(LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ("ladder", "bot_version", "joined_at", "withdrawn_at")
    list_filter = ("ladder",)
    search_fields = ("ladder__name", "bot_version__bot__name")
