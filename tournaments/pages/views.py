"""Page views: read-only pages for everyone, the upload page for logged-in authors."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from engine import list_games
from tournaments import ladder_clock, upload_rule, visibility
from tournaments.bot_lifecycle import BadUpload, upload_bot_version
from tournaments.ladder_entries import EntryRefused, enter_ladder, withdraw_from_ladder
from tournaments.models import Bot, BotVersion, Ladder, LadderEntry, Match, Seat, Tournament
from tournaments.numbers import is_whole
from tournaments.pages import brackets, queries, round_pages, unrated, version_tests
from tournaments.pages.charts import rating_chart
from tournaments.pages.keyset import BadCursor, keyset_page
from tournaments.pages.validation_log import read_log
from tournaments.rating_rule import provisional_sigma

MATCHES_PER_PAGE = 25
LADDER_ROWS_PER_PAGE = 50


def game_choices() -> list[tuple[str, str]]:
    return [(str(g["name"]), str(g.get("title") or g["name"])) for g in list_games()]


def choose(field: Any, choices: list[tuple[str, str]]) -> None:
    """Set a form's choice field's choices (filled when the form is made: the games and competitions change)."""
    field.choices = choices


def home(request: HttpRequest) -> HttpResponse:
    public = unrated.public_matches()  # unrated work is one click away (tournaments/pages/unrated.py)
    recent = queries.with_seats(public.filter(status=Match.Status.FINISHED).order_by("-finished_at", "-id"))
    live = queries.with_seats(public.filter(status=Match.Status.RUNNING).order_by("-started_at", "-id"))
    return render(request, "pages/home.html", {
        "games": list_games(),
        "ladders": Ladder.objects.filter(paused=False).order_by("name"),
        "tournaments": Tournament.objects.filter(state=Tournament.State.RUNNING).order_by("-id"),
        "finished_tournaments": Tournament.objects.filter(state=Tournament.State.FINISHED).order_by("-id")[:5],
        "live_matches": live[:5],
        "recent_matches": recent[:10],
    })


def ladder_detail(request: HttpRequest, pk: int) -> HttpResponse:
    ladder = get_object_or_404(Ladder, pk=pk)
    if unrated.is_internal(ladder):
        return internal_ladder(request, ladder)
    page = Paginator(queries.ladder_rows(ladder), LADDER_ROWS_PER_PAGE).get_page(request.GET.get("page"))
    matches = Match.objects.filter(ladder=ladder)
    return render(request, "pages/ladder.html", {
        "ladder": ladder,
        "rows": queries.shown_rows(request.user, list(page.object_list)),
        "page": page,
        "seat_rates": queries.seat_rates(ladder),
        "seat_rates_over": "rated games",
        "game_seat_rates": queries.game_seat_rates(ladder.game, ladder.players_per_match),
        "recent_matches": queries.with_seats(matches.order_by("-id"))[:10],
        "provisional_sigma": provisional_sigma(),
        **next_round(),
    })


def next_round() -> dict[str, Any]:
    """When the ladders' clock tops the ladders up next (tournaments/ladder_clock.py), if one ran lately."""
    at = ladder_clock.next_round()  # None once a clock missed a few rounds (the record expires)
    seconds = max(0, round((at - timezone.now()).total_seconds())) if at else None
    return {"next_round": at, "next_round_seconds": seconds, "round_seconds": round(ladder_clock.period())}


def internal_ladder(request: HttpRequest, ladder: Ladder) -> HttpResponse:
    """A system ladder of unrated work: no standings, only the games this user may see."""
    matches = queries.with_seats(unrated.unrated_matches(request.user).filter(ladder=ladder))
    try:
        page = keyset_page(matches, request, MATCHES_PER_PAGE)
    except BadCursor as exc:
        return bad_input(exc)
    return render(request, "pages/internal_ladder.html", {"ladder": ladder, "page": page})


def bad_input(exc: ValueError) -> HttpResponse:
    return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")


def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    try:
        shown = round_pages.round_page(tournament, request.GET.get(round_pages.ROUND))
    except round_pages.BadRound as exc:
        return bad_input(exc)
    rows = queries.shown_rows(request.user, queries.competition_rows(tournament))
    round_robin = tournament.format == Tournament.Format.ROUND_ROBIN
    crossed = round_robin and len(rows) > 1
    return render(request, "pages/tournament.html", {
        "tournament": tournament,
        "rows": rows,
        "seat_rates": queries.seat_rates(tournament),
        "game_seat_rates": queries.game_seat_rates(tournament.game, tournament.players_per_table),
        "rounds": brackets.round_views(tournament, queries.rounds(tournament, request.user, shown.numbers), rows),
        "round_page": shown,
        "games": shown.games,
        "cross_table": brackets.cross_table(tournament, rows, round_pages.meetings(tournament, shown)) if crossed
        else None,
        "champion": queries.champion(tournament, request.user),
        "provisional_sigma": provisional_sigma(),
    })


class MatchFilter(forms.Form):
    game = forms.ChoiceField(required=False)
    bot = forms.CharField(required=False, max_length=64, label="Bot name")
    status = forms.ChoiceField(required=False, choices=[("", "any")] + list(Match.Status.choices))
    competition = forms.ChoiceField(required=False)
    kind = forms.ChoiceField(required=False, choices=unrated.KINDS, label="Games")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choose(self.fields["game"], [("", "any"), *game_choices()])
        choose(self.fields["competition"], [("", "any"), *unrated.public_competitions(queries.competition_choices())])


def match_list(request: HttpRequest) -> HttpResponse:
    form = MatchFilter(request.GET or None)
    params = form.cleaned_data if form.is_valid() else {}
    kind = unrated.of_kind(params.get("kind", ""), request.user)
    try:
        page = keyset_page(queries.filter_matches(kind, params, request.user), request, MATCHES_PER_PAGE)
    except BadCursor as exc:
        return bad_input(exc)
    return render(request, "pages/matches.html", {"form": form, "page": page})


def bot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # A bot the user may not see is not found, with the very page of a bot that does not exist.
    bot = Bot.objects.filter(visibility.visible_bots(request.user)).select_related("owner").filter(pk=pk).first()
    if bot is None:
        return render(request, "pages/not_found.html", {"what": "bot"}, status=404)
    record = unrated.rated_record(bot)
    versions = [(v, record.by_version.get(v.pk, [0, 0])) for v in bot.versions.order_by("-number")]
    played = unrated.public_matches().filter(Exists(Seat.objects.filter(bot_version__bot=bot, match=OuterRef("pk"))))
    matches = queries.with_seats(played.order_by("-id"))
    is_owner = _is_owner(request, bot)
    return render(request, "pages/bot.html", {
        "bot": bot, "record": record, "versions": versions, "is_owner": is_owner,
        "chart": rating_chart(queries.rating_history([v.pk for v, _ in versions]), f"Rating history of {bot.name}"),
        "rating_points": queries.RATING_POINTS,
        "recent_matches": matches[:10],
        "sees_unrated": unrated.can_see_unrated(request.user, bot),
        "open_ladders": open_ladders(bot) if is_owner else [],
        "tests": version_tests.bot_tests(request.user, bot),
    })


def open_ladders(bot: Bot) -> list[dict[str, Any]]:
    """The open ladders of the bot's game, each with the bot's version on it (if any) and the one it could enter."""
    entered = {e.ladder_id: e.bot_version for e in LadderEntry.objects.filter(
        bot_version__bot=bot, withdrawn_at__isnull=True, ladder__is_open=True).select_related("bot_version__bot")}
    latest = bot.versions.filter(status=BotVersion.Status.ACTIVE).order_by("-number").first()
    return [{"ladder": ladder, "entered": entered.get(ladder.pk), "candidate": latest}
            for ladder in Ladder.objects.filter(is_open=True, game=bot.game).order_by("name")]


@require_POST
@login_required
def ladder_entry(request: HttpRequest, pk: int) -> HttpResponse:
    """Enter or withdraw one of your versions on an open ladder (the bot page's buttons), then back to the bot."""
    ladder = get_object_or_404(Ladder, pk=pk)
    version_id = int(request.POST["bot_version"]) if is_whole(request.POST.get("bot_version", "")) else 0
    act = enter_ladder if request.POST.get("action") == "enter" else withdraw_from_ladder
    try:
        entry = act(request.user, ladder, version_id)
    except EntryRefused as exc:
        messages.error(request, str(exc))
        bot_id = BotVersion.objects.filter(pk=version_id, bot__owner=request.user.pk).values_list("bot_id", flat=True)
        return redirect("pages:bot", pk=bot_id[0]) if bot_id else redirect("pages:ladder", pk=ladder.pk)
    done = "entered on" if entry.withdrawn_at is None else "withdrawn from"
    messages.success(request, f"{entry.bot_version.label} {done} {ladder.name}.")
    return redirect("pages:bot", pk=entry.bot_version.bot_id)


def version_detail(request: HttpRequest, pk: int) -> HttpResponse:
    version = visibility.visible_versions(request.user).select_related("bot__owner").filter(pk=pk).first()
    if version is None:
        return render(request, "pages/not_found.html", {"what": "bot version"}, status=404)
    is_owner = _is_owner(request, version.bot)
    return render(request, "pages/version.html", {
        "version": version, "is_owner": is_owner, "validation_match": queries.validation_match_id(version.pk),
        "log": read_log(version.validation_log) if is_owner else None,
        "is_settling": version.status in (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING),
        "test_form": version_tests.test_form_for(request.user, version) if request.user.is_authenticated else None,
    })


def _is_owner(request: HttpRequest, bot: Bot) -> bool:
    return visibility.is_owner(request.user, bot.owner_id)


class UploadForm(forms.Form):
    name = forms.SlugField(max_length=64, help_text="letters, digits, - and _; a new name creates a new bot")
    game = forms.ChoiceField()
    file = forms.FileField(help_text="a single .py file, or a .zip with main.py")
    description = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choose(self.fields["game"], game_choices())


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and (refused := refuse_upload(request)):
        return refused
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            version = upload_bot_version(request.user, data["name"], data["game"], data["file"].name,
                                         data["file"].read(), data["description"])
        except BadUpload as exc:
            form.add_error("file", str(exc))
        else:
            return redirect("pages:version", pk=version.pk)
    return upload_page(request, form)


def upload_page(request: HttpRequest, form: UploadForm, status: int = 200, refused: str = "") -> HttpResponse:
    bots = Bot.objects.filter(owner=request.user.pk).prefetch_related("versions").order_by("name")
    return render(request, "pages/upload.html", {"form": form, "bots": bots, "refused": refused}, status=status)


def refuse_upload(request: HttpRequest) -> HttpResponse | None:
    """The API's rule (tournaments/upload_rule.py), checked before the form is parsed: 429, then 413."""
    wait = upload_rule.throttle_wait(request)
    if wait is not None:
        refused = f"too many uploads: try again in {int(wait) + 1} seconds (LUDUS_UPLOAD_RATE)"
        return upload_page(request, UploadForm(), status=429, refused=refused)
    if message := upload_rule.oversize_message(upload_rule.announced_length(request)):
        return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
    return None
