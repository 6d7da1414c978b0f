"""The replay viewer page and its JSON: the event log (also the live progress) and the export.

- `GET /replays/<match>/`: the viewer. It reads its frames from the API, `/api/matches/<match>/frames/`
  (replays/api/views.py), in chunks of MAX_FRAMES, with the page's session cookie.
- `GET /replays/<match>/log.json?since=N`: status, step count, views allowed now, and the log after step N. While
  the match runs, the viewer polls it for progress (docs/architecture.md#replays says why it is not an API route).
- `GET /replays/<match>/export/`: the self-contained replay file.
- `GET /replays/games/<game>.js`: the script that draws a game's board, from beside the game's module.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import etag, require_GET

from engine.core import InvalidOptions
from engine.registry import viewer_of
from replays import live
from replays.format import encode_replay
from replays.frames import MAX_FRAMES
from replays.verify import ReplayMismatch
from tournaments import visibility
from tournaments.models import Match

Response = TypeVar("Response", bound=HttpResponse)


def match_or_404(pk: int) -> Match:
    return get_object_or_404(Match.objects.select_related("ladder", "tournament"), pk=pk)


def viewer(request: HttpRequest, pk: int) -> HttpResponse:
    match = match_or_404(pk)
    seats = list(match.seats.select_related("bot_version__bot").order_by("number"))
    views = visibility.allowed_views(request.user, match)
    game_viewer = viewer_of(match.game)
    config = {
        "match": match.pk, "game": match.game, "status": match.status, "players": match.num_players,
        "seats": [{"seat": s.number, "label": visibility.seat_label(request.user, s.bot_version), "score": s.score,
                   "rank": s.rank} for s in seats],
        "views": views, "view": "omniscient" if "omniscient" in views else (views[0] if views else None),
        "chunk": MAX_FRAMES, "score_units": game_viewer["score_units"], "max_faults": match.max_faults,
        "urls": {"log": reverse("replays:log", args=[match.pk]), "frames": reverse("api:match-frames", args=[match.pk]),
                 "scores": reverse("replays:scores", args=[match.pk])},
        "seat_logs": {str(s.number): reverse("replays:seat_log", args=[match.pk, s.number]) for s in seats
                      if visibility.can_see_seat_log(request.user, s.bot_version.bot.owner_id)},
    }
    from replays.branch_pages import branch_form, described

    return render(request, "replays/viewer.html", {"match": match, "seats": seats, "config": config,
                                                   "game_viewer": game_viewer,
                                                   "has_replay": hasattr(match, "replay"),
                                                   "branching": branch_form(request.user, match),
                                                   "branches": described(request.user,
                                                                         match.branches.order_by("pk")[:20])})


@lru_cache(maxsize=16)
def _game_script(name: str) -> tuple[bytes, str]:
    """The game's board script and its ETag; Http404 for an unknown game or one with the generic board."""
    try:
        script = viewer_of(name)["script"]
    except InvalidOptions as exc:
        raise Http404(str(exc)) from exc
    if script is None:
        raise Http404(f"{name} has no board script: the viewer draws the generic board")
    body = Path(script).read_bytes()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@require_GET
@etag(lambda request, name: _game_script(name)[1])
def game_script(request: HttpRequest, name: str) -> HttpResponse:
    """GET /replays/games/<game>.js: the script beside the game's module that draws its board
    (docs/architecture.md#adding-a-third-game-in-a-day)."""
    response = HttpResponse(_game_script(name)[0], content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "public, max-age=300"  # revalidated by its ETag after a deploy
    return response


def cache_if_over(response: Response, is_over: bool) -> Response:
    # A match that is over never changes and everyone may see all of it: cacheable anywhere. Before, what a reader
    # gets depends on who they are and changes: never stored.
    response["Cache-Control"] = "public, max-age=86400" if is_over else "private, no-store"
    return response


@gzip_page
def log(request: HttpRequest, pk: int) -> JsonResponse:
    match = match_or_404(pk)
    src, over = live.source(match), visibility.is_over(match)
    since = _int(request.GET.get("since"), 0)
    try:
        events = live.event_log(src.document, since) if src else []
    except ReplayMismatch as exc:
        return JsonResponse({"detail": live.not_replayable(match.pk, exc)}, status=500)
    body: dict[str, Any] = {"match": match.pk, "status": match.status,
                            "views": visibility.allowed_views(request.user, match, over),
                            "steps": src.steps if src else 0, "finished": bool(src and src.is_finished),
                            "log": events}
    if src and src.is_finished:
        body["outcome"] = src.document["footer"]["outcome"]
        body["forfeited"] = src.document["footer"].get("forfeited")
    return cache_if_over(JsonResponse(body), over)


def export(request: HttpRequest, pk: int) -> HttpResponse:
    match = match_or_404(pk)
    src = live.source(match)
    if src is None or not src.is_finished:
        raise Http404("only a finished match has a replay file")
    if not visibility.can_see_secrets(request.user, visibility.is_over(match)):
        raise Http404("the replay file opens once every game of the match's set is finished")
    document = dict(src.document, header=visibility.shown_header(request.user, src.document["header"]))
    response = HttpResponse(encode_replay(document), content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="ludus-match-{match.pk}.replay.gz"'
    return response


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default
