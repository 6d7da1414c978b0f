"""The viewer's "Branch from here" form and the branch's page beside its parent (docs/branches.md).

- `POST /replays/<match>/branch/`: the form (step, seat_N, force, resample, games); on success to the first branch's
  page, otherwise back to the viewer at that step with the one-line reason.
- `GET /replays/<branch>/compare/`: the parent beside the branch: final scores of both, and the score chart with
  step K marked and the first step where the scores part.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from rest_framework.throttling import ScopedRateThrottle

from replays import live
from replays.branches import MAX_GAMES, BranchForbidden, BranchRefused, BranchRequest, create_branches, describe
from replays.scores import score_series
from tournaments import visibility
from tournaments.models import BotVersion, Match

CHART_W, CHART_H, PAD = 600, 160, 8


def may_branch(user: Any, match: Match) -> bool:
    """Whether the viewer offers this user the form (the service decides again on submit)."""
    return bool(user.is_authenticated and match.status == Match.Status.FINISHED
                and (visibility.is_staff(user) or visibility.is_over(match)))


def seat_choices(user: Any, game: str) -> list[dict[str, str]]:
    """What the form offers a seat besides its own bot: the built-in bots, then the user's own active versions."""
    own = (BotVersion.objects.filter(bot__owner=user, bot__game=game, status=BotVersion.Status.ACTIVE)
           .select_related("bot").order_by("bot__name", "number"))
    return [{"value": name, "label": f"built-in {name}"} for name in ("greedy", "random")] + [
        {"value": str(version.pk), "label": version.label} for version in own]


def branch_form(user: Any, match: Match) -> dict[str, Any] | None:
    """The viewer template's form context, or None when the user may not branch this match."""
    if not may_branch(user, match):
        return None
    seats = [{"number": seat.number, "label": visibility.seat_label(user, seat.bot_version)}
             for seat in match.seats.select_related("bot_version__bot").order_by("number")]
    return {"bots": seat_choices(user, match.game), "max_games": MAX_GAMES, "seats": seats}


@require_POST
def branch(request: HttpRequest, pk: int) -> HttpResponse:
    parent = Match.objects.filter(pk=pk).first()
    if parent is None:
        raise Http404(f"no match {pk}")
    viewer = reverse("replays:viewer", args=[pk])
    if not request.user.is_authenticated:
        return redirect_to_login(viewer)
    form = request.POST
    if not _throttle_allows(request):
        messages.error(request, "No branch: too many match requests for now (LUDUS_MATCH_REQUEST_RATE); try later")
        return redirect(f"{viewer}#step={form.get('step', '0')}")
    try:
        step = _number(form.get("step"), "step")
        # the form's seat_N fields are the seats' numbers from 0; the service counts them from 1
        seats = {n + 1: form[f"seat_{n}"] for n in range(parent.num_players) if form.get(f"seat_{n}")}
        force = _number(form["force"], "force") if form.get("force") else None
        wanted = BranchRequest(step=step, seats=seats, force=force, games=_number(form.get("games") or "1", "games"),
                               resample=bool(form.get("resample")))
        branches = create_branches(parent, request.user, wanted)
    except (BranchRefused, BranchForbidden) as exc:
        messages.error(request, f"No branch: {exc}")
        return redirect(f"{viewer}#step={form.get('step', '0')}")
    return redirect("replays:compare", branches[0].pk)


class _Scope:
    throttle_scope = "matches"  # the API's bucket: the form and POST /api/matches/ID/branches/ share one rate


def _throttle_allows(request: HttpRequest) -> bool:
    return bool(ScopedRateThrottle().allow_request(request, _Scope()))  # type: ignore[arg-type]


def _number(text: str | None, name: str) -> int:
    try:
        return int(text or "")
    except ValueError:
        raise BranchRefused(name, f"{name} must be a whole number, got {text!r}") from None


def compare(request: HttpRequest, pk: int) -> HttpResponse:
    match = Match.objects.select_related("parent").filter(pk=pk).first()
    if match is None or match.parent is None:
        raise Http404(f"match {pk} is no branch")
    parent, user = match.parent, request.user
    view = "omniscient" if all(visibility.can_see_secrets(user, visibility.is_over(m)) for m in (match, parent)) \
        else visibility.PUBLIC
    series = {"parent": _series(parent, view), "branch": _series(match, view)}
    siblings = described(user, Match.objects.filter(parent=parent).order_by("pk"))
    context = {"match": match, "parent": parent, "view": view, "kept": match.branch_step,
               "rows": _rows(user, parent, match), "chart": chart(series, match.branch_step or 0),
               "siblings": siblings, "said": describe(user, match)}
    return render(request, "replays/compare.html", context)


def described(user: Any, branches: Any) -> list[dict[str, Any]]:
    """The lists' rows of branches: each one's id, status and what it changed, in words."""
    return [{"pk": branch.pk, "status": branch.status, "said": describe(user, branch)}
            for branch in branches.select_related("parent")]


def _series(match: Match, view: str) -> list[list[int]]:
    src = live.source(match)
    return score_series(src.document, None if view == "omniscient" else view) if src else []


def _rows(user: Any, parent: Match, match: Match) -> list[dict[str, Any]]:
    seats = {m.pk: list(m.seats.select_related("bot_version__bot").order_by("number")) for m in (parent, match)}
    return [{"number": number, "parent": visibility.seat_label(user, old.bot_version), "parent_score": old.score,
             "branch": visibility.seat_label(user, new.bot_version), "branch_score": new.score}
            for number, (old, new) in enumerate(zip(seats[parent.pk], seats[match.pk], strict=True))]


def chart(series: dict[str, list[list[int]]], step: int) -> dict[str, Any] | None:
    """Polylines per seat for the parent (dashed) and the branch, x by step, the branch point and the first step
    where the scores part."""
    steps = max(len(rows) for rows in series.values()) - 1
    if steps < 1 or not all(series.values()):
        return None
    top = max([1] + [v for rows in series.values() for row in rows for v in row])

    def x(n: int) -> float:
        return round(PAD + n * (CHART_W - 2 * PAD) / steps, 1)

    def points(rows: list[list[int]], seat: int) -> str:
        return " ".join(f"{x(n)},{round(CHART_H - PAD - max(0, row[seat]) * (CHART_H - 2 * PAD) / top, 1)}"
                        for n, row in enumerate(rows))

    lines = [{"kind": kind, "seat": seat, "points": points(rows, seat)}
             for kind, rows in series.items() for seat in range(len(rows[0]))]
    parted = next((n for n, (a, b) in enumerate(zip(series["parent"], series["branch"], strict=False)) if a != b),
                  None)
    return {"width": CHART_W, "height": CHART_H, "lines": lines, "step": step, "step_x": x(step),
            "parted": parted, "parted_x": x(parted) if parted is not None else None}
