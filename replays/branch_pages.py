"""The viewer's "Branch from here" form and the branch's page beside its parent (docs/branches.md).

- `POST /replays/<match>/branch/`: the form (step, seat_N, force, resample, games); on success to the first branch's
  page, otherwise back to the viewer at that step with the one-line reason.
- `GET /replays/<branch>/compare/`: the parent beside the branch: the outcome first (each seat's rank and score in
  both, the difference, one sentence of who wins), the first move that differs in the game's own words, a resampled
  batch's summary, and the score chart with axes, a legend, step K marked and the first step where the scores part.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from engine.registry import viewer_of
from replays import live
from replays.branch_batches import batch_of
from replays.branches import (
    MAX_GAMES,
    BranchForbidden,
    BranchRefused,
    BranchRequest,
    create_branches,
    decision_of_step,
    describe,
)
from replays.scores import score_series
from tournaments import visibility
from tournaments.models import BotVersion, Match
from tournaments.throttles import throttle_wait

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
    if throttle_wait(request, "matches") is not None:  # the API's bucket: the form and POST .../branches/ share it
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
    sources = {"parent": live.source(parent), "branch": live.source(match)}
    series = {kind: _series(src, view) for kind, src in sources.items()}
    siblings = described(user, Match.objects.filter(parent=parent).order_by("pk"))
    rows = _rows(user, parent, match)
    context = {"match": match, "parent": parent, "view": view, "kept": match.branch_step, "rows": rows,
               "sentence": outcome_sentence(rows, match.status == Match.Status.FINISHED),
               "chart": chart(series, match.branch_step or 0, match.num_players), "siblings": siblings,
               "said": describe(user, match), "moves": moves_in_words(user, match, sources, view == "omniscient"),
               "batch": batch_of(match)}
    return render(request, "replays/compare.html", context)


def moves_in_words(user: Any, branch: Match, sources: dict[str, live.Source | None],
                   secrets: bool) -> dict[str, Any] | None:
    """The forced step (parent's move beside the forced one), or, without one, the first step where the branch moved
    otherwise than its parent, with both moves' log entries as the viewer's event log writes them (compare.js words
    them with the game's script). `same`: the forced option is the one played; `later`: where the games then part.
    These, and the options chosen (for a move without public events), only for who may see every seat's choices
    (`secrets`): whether the forced option is the parent's tells the parent's choice."""
    if not all(sources.values()):
        return None
    logs = {kind: live.event_log(src.document, max(0, (branch.branch_step or 1) - 1))
            for kind, src in sources.items() if src is not None}
    pairs = list(zip(logs["parent"], logs["branch"], strict=False))
    parted = next((pair for pair in pairs if pair[0]["events"] != pair[1]["events"]), None)
    forced = branch.branch_force is not None and bool(pairs)
    shown = pairs[0] if forced else parted
    if shown is None:
        return None
    seats = list(branch.seats.select_related("bot_version__bot").order_by("number"))
    parent_doc = sources["parent"].document if sources["parent"] else {"actions": []}
    choices = [doc.document["actions"][shown[0]["step"] - 1]["choice"] for doc in sources.values() if doc]
    decision = decision_of_step(parent_doc, shown[0]["step"])
    same = forced and secrets and choices[0] == branch.branch_force  # the parent's choice: a secret until over
    return {"step": shown[0]["step"], "forced": forced, "parent": shown[0], "branch": shown[1], "same": same,
            "kind": decision.kind, "choices": choices if secrets else None,
            "options": [decision.options[c] for c in choices] if secrets else None,
            "later": parted[0]["step"] if same and parted else None, "game": branch.game,
            "players": branch.num_players, "units": viewer_of(branch.game)["score_units"],
            "seats": [{"seat": s.number, "label": visibility.seat_label(user, s.bot_version)} for s in seats],
            "script": viewer_of(branch.game)["script"] is not None}


def outcome_sentence(rows: list[dict[str, Any]], finished: bool) -> str:
    """Who wins, in the parent and in the branch, in one sentence: "Seat 3 wins either way; its margin falls from 20
    to 6"."""
    if not finished or any(row["branch_rank"] is None or row["parent_rank"] is None for row in rows):
        return "The branch has not finished yet: its outcome appears here once it has."
    before, after = (_winners(rows, kind) for kind in ("parent", "branch"))
    if before == after:
        margins = [_margin(rows, kind, before) for kind in ("parent", "branch")]
        trend = ("stays at {0}" if margins[0] == margins[1] else "falls from {0} to {1}" if margins[1] < margins[0]
                 else "grows from {0} to {1}").format(*margins)
        if len(before) > 1:
            return f"{_names(before)} share first place either way; the lead over the rest {trend}."
        return f"{_names(before)} wins either way; its margin {trend}."
    lost = [row for row in rows if row["number"] in before and row["number"] not in after]
    fall = "; ".join(f"Seat {row['number'] + 1} comes {_ordinal(row['branch_rank'])}" for row in lost)
    return (f"{_names(before)} {_verb(before)} the parent; in the branch {_names(after)} {_verb(after, now=True)} "
            f"by {_margin(rows, 'branch', after)}" + (f", and {fall}" if fall else "") + ".")


def _winners(rows: list[dict[str, Any]], kind: str) -> list[int]:
    return [row["number"] for row in rows if row[f"{kind}_rank"] == 1]


def _margin(rows: list[dict[str, Any]], kind: str, winners: list[int]) -> int:
    """The winners' score over the best of the rest (0 when every seat shares first place)."""
    rest = [row[f"{kind}_score"] or 0 for row in rows if row["number"] not in winners]
    best = max(row[f"{kind}_score"] or 0 for row in rows if row["number"] in winners)
    return best - max(rest) if rest else 0


def _names(numbers: list[int]) -> str:
    if len(numbers) == 1:
        return f"Seat {numbers[0] + 1}"
    return "Seats " + ", ".join(str(n + 1) for n in numbers[:-1]) + f" and {numbers[-1] + 1}"


def _verb(numbers: list[int], now: bool = False) -> str:
    if len(numbers) > 1:
        return "share first place" if now else "shared first place in"
    return "wins" if now else "won"


def _ordinal(rank: int) -> str:
    return f"{rank}{'th' if 10 <= rank % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th')}"


def described(user: Any, branches: Any) -> list[dict[str, Any]]:
    """The lists' rows of branches: each one's id, status and what it changed, in words."""
    return [{"pk": branch.pk, "status": branch.status, "said": describe(user, branch)}
            for branch in branches.select_related("parent")]


def _series(src: live.Source | None, view: str) -> list[list[int]]:
    return score_series(src.document, None if view == "omniscient" else view) if src else []


def _rows(user: Any, parent: Match, match: Match) -> list[dict[str, Any]]:
    """Per seat: both bots, ranks and scores, and the branch's score less the parent's."""
    seats = {m.pk: list(m.seats.select_related("bot_version__bot").order_by("number")) for m in (parent, match)}
    return [{"number": number, "parent": visibility.seat_label(user, old.bot_version), "parent_score": old.score,
             "parent_rank": old.rank, "branch": visibility.seat_label(user, new.bot_version),
             "branch_score": new.score, "branch_rank": new.rank,
             "difference": None if old.score is None or new.score is None else new.score - old.score}
            for number, (old, new) in enumerate(zip(seats[parent.pk], seats[match.pk], strict=True))]


def chart(series: dict[str, list[list[int]]], step: int, players: int) -> dict[str, Any] | None:
    """Polylines per seat for the parent (dashed) and the branch, x by step, the branch point and the first step
    where the scores part; the axes' ticks (step and score, placed in percent of the plot) and the legend's seats."""
    steps = max(len(rows) for rows in series.values()) - 1
    if steps < 1 or not all(series.values()):
        return None
    top = max([1] + [v for rows in series.values() for row in rows for v in row])

    def x(n: int) -> float:
        return round(PAD + n * (CHART_W - 2 * PAD) / steps, 1)

    def y(value: int) -> float:
        return round(CHART_H - PAD - max(0, value) * (CHART_H - 2 * PAD) / top, 1)

    def points(rows: list[list[int]], seat: int) -> str:
        return " ".join(f"{x(n)},{y(row[seat])}" for n, row in enumerate(rows))

    lines = [{"kind": kind, "seat": seat, "points": points(rows, seat)}
             for kind, rows in series.items() for seat in range(len(rows[0]))]
    parted = next((n for n, (a, b) in enumerate(zip(series["parent"], series["branch"], strict=False)) if a != b),
                  None)
    x_ticks = sorted({0, step, steps} | ({parted} if parted is not None else set()))
    return {"width": CHART_W, "height": CHART_H, "lines": lines, "step": step, "step_x": x(step),
            "parted": parted, "parted_x": x(parted) if parted is not None else None,
            "x_ticks": [{"label": n, "at": round(100 * x(n) / CHART_W, 2)} for n in x_ticks],
            "y_ticks": [{"label": v, "y": y(v), "at": round(100 * (CHART_H - y(v)) / CHART_H, 2)}
                        for v in sorted({0, top // 2, top})],
            "seats": list(range(players))}
