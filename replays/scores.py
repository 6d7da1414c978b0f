"""Each seat's score after every step, as the viewer's score chart draws it: from the same view the board shows, by
the game's own rule (`Game.view_scores`, docs/architecture.md#adding-a-third-game-in-a-day), so it shows no more than
the board."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.gzip import gzip_page

from engine.registry import load_game
from replays import live
from replays.frames import frames, seat_of
from replays.views import cache_if_over, match_or_404
from tournaments import visibility


def score_series(document: dict[str, Any], seat: int | str | None) -> list[list[int]]:
    """[[score of each seat] at step 0, at step 1, ...] in that view; [] for a game whose views hold no scores."""
    game = load_game(document["header"]["game"])
    try:
        return [game.view_scores(frame["view"]) for frame in frames(document, 0, None, seat)]
    except NotImplementedError:
        return []


@gzip_page
def scores(request: HttpRequest, pk: int) -> JsonResponse:
    """GET /replays/<match>/scores.json?view=V: the score series in a view this user may pick now (403 otherwise)."""
    match = match_or_404(pk)
    view, over = request.GET.get("view", ""), visibility.is_over(match)
    if view not in visibility.allowed_views(request.user, match, over):
        return JsonResponse({"detail": f"view {view!r} is not available for match {match.pk} now"}, status=403)
    src = live.source(match)
    if src is None:
        raise Http404("this match has nothing to show yet")
    seat = seat_of(view)
    body = {"match": match.pk, "view": view, "steps": src.steps, "scores": score_series(src.document, seat)}
    return cache_if_over(JsonResponse(body), over)
