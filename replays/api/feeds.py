"""Live feeds, as newline-delimited JSON (`application/x-ndjson`), one object per line (ARCHITECTURE §8).

- `GET /api/matches/{id}/feed/`: a `match` line, then one `action` line per action with its public events (never a
  seat's view, never a choice index), then `end` with the status (and the outcome when finished). While the match
  runs, actions come from its live progress (replays/progress.py, written by the runner); once it is finished,
  from the replay. A retried match sends `restart` and starts again from step 0.
- `GET /api/ladders/{id}/feed/?since=`: one `result` line per ladder match finished after `since` (default: now).

Each connection lasts at most LUDUS_FEED_SECONDS, then ends with a `timeout` line; clients reconnect (a match feed
from the start, a ladder feed with `since` set to the last `finished_at`). The server polls the database every
LUDUS_FEED_POLL_SECONDS.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, permissions, renderers
from rest_framework.request import Request
from rest_framework.views import APIView

from engine import State, load_game
from replays.api.access import public_action
from replays.models import Replay
from replays.progress import live_actions
from tournaments.api.common import errors, to_utc
from tournaments.models import Ladder, Match, Seat

NDJSON = "application/x-ndjson"


class NDJSONRenderer(renderers.BaseRenderer):
    """Errors (404, 400) of the feed endpoints, as one JSON line."""

    media_type = NDJSON
    format = "ndjson"
    charset = None

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return line(data)


def line(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), default=str).encode() + b"\n"


class Feed:
    """The clock of one connection: its deadline and the pause between polls."""

    def __init__(self) -> None:
        self.deadline = time.monotonic() + settings.LUDUS_FEED_SECONDS

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def pause(self) -> None:
        time.sleep(max(0.0, min(settings.LUDUS_FEED_POLL_SECONDS, self.deadline - time.monotonic())))


def _new_state(match: Match) -> State:
    game = load_game(match.game)
    return game.new_state(match.num_players, match.seed, game.validate_options(match.options))


def match_lines(match_id: int, feed: Feed) -> Iterator[bytes]:
    match = Match.objects.get(pk=match_id)
    seats = Seat.objects.filter(match=match).select_related("bot_version__bot").order_by("number")
    yield line({"type": "match", "match": match.pk, "game": match.game, "status": match.status,
                "players": match.num_players,
                "seats": [{"seat": s.number, "bot_version": s.bot_version_id, "bot": s.bot_version.bot.name,
                           "version": s.bot_version.number} for s in seats]})
    state, sent = _new_state(match), 0
    while True:
        match = Match.objects.get(pk=match_id)
        replay = Replay.objects.filter(match_id=match_id).first() if match.status == Match.Status.FINISHED else None
        actions = replay.action_log() if replay is not None else live_actions(match)
        if len(actions) < sent:  # the match was retried: its progress starts again
            yield line({"type": "restart"})
            state, sent = _new_state(match), 0
        for record in actions[sent:]:
            events = state.choose(record["choice"])
            yield line({"type": "action", "step": sent + 1, **public_action(record), "events": events})
            sent += 1
        if match.is_done():
            end: dict[str, Any] = {"type": "end", "status": match.status, "steps": sent}
            if replay is not None:
                end["outcome"] = replay.footer["outcome"]
            yield line(end)
            return
        if feed.expired():
            yield line({"type": "timeout", "steps": sent})
            return
        feed.pause()


def ladder_lines(ladder_id: int, since: datetime, feed: Feed) -> Iterator[bytes]:
    cursor: tuple[datetime, int] = (since, 0)
    while True:
        finished = (Match.objects.filter(ladder_id=ladder_id, status=Match.Status.FINISHED,
                                         finished_at__gte=cursor[0])
                    .exclude(finished_at=cursor[0], pk__lte=cursor[1])
                    .prefetch_related("seats__bot_version__bot").order_by("finished_at", "pk")[:100])
        for match in finished:
            yield line({"type": "result", "match": match.pk, "finished_at": match.finished_at.isoformat(),
                        "rated": match.rated, "seats": [_seat_result(seat) for seat in match.seats.all()]})
            assert match.finished_at is not None
            cursor = (match.finished_at, match.pk)
        if feed.expired():
            yield line({"type": "timeout", "since": cursor[0].isoformat()})
            return
        feed.pause()


def _seat_result(seat: Seat) -> dict[str, Any]:
    return {"seat": seat.number, "bot_version": seat.bot_version_id, "bot": seat.bot_version.bot.name,
            "version": seat.bot_version.number, "score": seat.score, "rank": seat.rank, "forfeited": seat.forfeited,
            "rating_mu_before": seat.rating_mu_before, "rating_mu_after": seat.rating_mu_after}


def stream(lines: Iterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=NDJSON)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # let a proxy pass each line at once
    return response


FEED_RESPONSE = OpenApiResponse(OpenApiTypes.STR, description="newline-delimited JSON objects, one per line")


class MatchFeedView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [renderers.JSONRenderer, NDJSONRenderer]

    @extend_schema(tags=["replays"], summary="Live feed of a match's actions and public events (NDJSON)",
                   responses={(200, NDJSON): FEED_RESPONSE, **errors(404)})
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        match = get_object_or_404(Match, pk=pk)
        return stream(match_lines(match.pk, Feed()))


class LadderFeedView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [renderers.JSONRenderer, NDJSONRenderer]

    @extend_schema(tags=["ladders"], summary="Live feed of a ladder's new results (NDJSON)",
                   parameters=[OpenApiParameter("since", OpenApiTypes.DATETIME,
                                                description="results finished at or after this; default now")],
                   responses={(200, NDJSON): FEED_RESPONSE, **errors(400, 404)})
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        ladder = get_object_or_404(Ladder, pk=pk)
        unknown = sorted(set(request.query_params) - {"since"})
        if unknown:
            raise exceptions.ValidationError({name: [f"unknown parameter {name!r}"] for name in unknown})
        since = timezone.now()
        if "since" in request.query_params:
            from django.utils.dateparse import parse_datetime

            raw = request.query_params["since"]
            try:
                parsed = parse_datetime(raw)
            except ValueError:
                parsed = None
            if parsed is None:
                raise exceptions.ValidationError({"since": [f"since must be an ISO 8601 date-time, got {raw!r}"]})
            since = to_utc(parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed), "since")
        return stream(ladder_lines(ladder.pk, since, Feed()))
