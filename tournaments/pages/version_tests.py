"""The pages of version tests (docs/version-tests.md): the list, a test's live page, and the version page's form."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from engine import list_games
from engine.bots import bot_names
from tournaments import visibility
from tournaments.models import Bot, BotVersion, VersionTest
from tournaments.throttles import throttle_wait
from tournaments.version_tests import TestRefused, TestRequest, start_test

TESTS_PER_PAGE = 25


def visible_tests(request: HttpRequest) -> QuerySet[VersionTest]:
    return visibility.with_open_games(VersionTest.objects.filter(visibility.visible_tests(request.user))
                                      .select_related("owner", "new__bot", "base__bot").order_by("-pk"))


def labelled(tests: Iterable[VersionTest], user: Any) -> list[VersionTest]:
    """The tests with their new and base versions' labels as the user may see them (`new_shown`, `base_shown`): a bot
    made private since the test began is "private bot" to all but its owner and staff, as in its matches."""
    shown = list(tests)
    for test in shown:
        test.new_shown = visibility.seat_label(user, test.new)  # type: ignore[attr-defined]
        test.base_shown = visibility.seat_label(user, test.base)  # type: ignore[attr-defined]
    return shown


class TestFilter(forms.Form):
    bot = forms.IntegerField(required=False, min_value=1, label="Bot id")
    author = forms.CharField(required=False, max_length=150)
    status = forms.ChoiceField(required=False, choices=[("", "any"), *VersionTest.Status.choices])


def test_list(request: HttpRequest) -> HttpResponse:
    form = TestFilter(request.GET or None)
    tests = visible_tests(request)
    if form.is_valid():
        data = form.cleaned_data
        if data["bot"]:
            tests = tests.filter(Q(new__bot_id=data["bot"]) | Q(base__bot_id=data["bot"]))
        if data["author"]:
            tests = tests.filter(owner__username=data["author"])
        if data["status"]:
            tests = tests.filter(status=data["status"])
    page = Paginator(tests, TESTS_PER_PAGE).get_page(request.GET.get("page"))
    shown = labelled(page, request.user)
    return render(request, "pages/tests.html", {"form": form, "page": page,
                                                 "running": [t for t in shown if t.is_running()],
                                                 "ended": [t for t in shown if not t.is_running()]})


def test_detail(request: HttpRequest, pk: int) -> HttpResponse:
    test = visible_tests(request).filter(pk=pk).first()
    if test is None:  # a test the user may not see is not found, like one that does not exist
        return render(request, "pages/not_found.html", {"what": "version test"}, status=404)
    field = {v.pk: v for v in BotVersion.objects.filter(pk__in=test.field).select_related("bot")}
    return render(request, "pages/test.html", {
        "test": labelled([test], request.user)[0],
        "field": [visibility.seat_label(request.user, field[pk]) for pk in test.field if pk in field],
        "games": test.games.select_related("match").order_by("deal", "swapped"),
        "llr_position": llr_position(test), "seed": test.seed if visibility.can_see_test_seed(test) else None,
        "is_owner": visibility.is_owner(request.user, test.owner_id),
    })


def llr_position(test: VersionTest) -> float:
    """Where the LLR sits between its bounds, in percent (0: H0 accepted, 100: H1 accepted)."""
    lower, upper = (float(b) for b in test.results.get("bounds", [-2.944, 2.944]))
    return round(max(0.0, min(100.0, (test.llr - lower) / (upper - lower) * 100)), 1)


class TestForm(forms.Form):
    """The version page's form: test this version against a base."""

    base = forms.IntegerField(min_value=1, help_text="the version to beat: its id")
    game = forms.CharField(required=False, max_length=32, help_text="needed when both are built-in bots")
    players = forms.IntegerField(required=False, min_value=2, max_value=8)
    field = forms.CharField(required=False, max_length=200,
                            help_text="the other seats, comma-separated: built-in bots or version ids")
    d0 = forms.FloatField(initial=0.0)
    d1 = forms.FloatField(initial=0.05)
    alpha = forms.FloatField(initial=0.05)
    beta = forms.FloatField(initial=0.05)
    max_games = forms.IntegerField(initial=2000)


def test_form_for(user: Any, version: BotVersion) -> dict[str, Any]:
    """What the version page's form offers: bases it may be tested against (the bot's other versions and the
    built-ins) and the built-in names for the field."""
    bases = list(visibility.visible_versions(user).filter(
        Q(bot=version.bot) | Q(bot__owner__username="ludus", builtin__in=bot_names()))
        .exclude(status__in=[BotVersion.Status.PENDING, BotVersion.Status.VALIDATING, BotVersion.Status.REJECTED])
        .select_related("bot").order_by("bot__name", "-number"))
    return {"form": TestForm(initial={"base": next((b.pk for b in bases if b.pk != version.pk), version.pk)}),
            "bases": bases, "builtins": bot_names(), "games": list_games() if version.is_builtin() else []}


@require_POST
@login_required
def start_from_version(request: HttpRequest, pk: int) -> HttpResponse:
    """The version page's form: start a test of the version against a base, then its page."""
    if throttle_wait(request, "matches") is not None:  # the API's bucket: the form and POST /api/tests/ share it
        messages.error(request, "No test: too many match requests for now (LUDUS_MATCH_REQUEST_RATE); try later")
        return redirect("pages:version", pk=pk)
    form = TestForm(request.POST)
    if not form.is_valid():
        for name, problems in form.errors.items():
            messages.error(request, f"{name}: {' '.join(str(p) for p in problems)}")
        return redirect("pages:version", pk=pk)
    data = form.cleaned_data
    others = [name.strip() for name in (data["field"] or "").split(",") if name.strip()]
    try:
        test = start_test(request.user, TestRequest(
            new=pk, base=data["base"], game=data["game"] or None, players=data["players"], field=others,
            d0=data["d0"], d1=data["d1"],
            alpha=data["alpha"], beta=data["beta"], max_games=data["max_games"]))
    except TestRefused as exc:
        messages.error(request, f"{exc.field}: {exc}")
        return redirect("pages:version", pk=pk)
    messages.success(request, f"Test {test.pk} started: {test.new.label} against {test.base.label}.")
    return redirect("pages:test", pk=test.pk)


def bot_tests(user: Any, bot: Bot) -> list[VersionTest]:
    """The tests the user may see in which a version of the bot is new or base, newest first."""
    return list(VersionTest.objects.filter(visibility.visible_tests(user))
                .filter(Q(new__bot=bot) | Q(base__bot=bot)).select_related("new__bot", "base__bot")
                .order_by("-pk")[:20])
