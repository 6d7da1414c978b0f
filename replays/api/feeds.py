"""Live feeds, as newline-delimited JSON (`application/x-ndjson`), one object per line
(docs/architecture.md#api-and-web).

- `GET /api/matches/{id}/feed/`: a `match` line, then one `action` line per action with its public events (never a
  seat's view, never a choice index), then `end` with the status (and the outcome when finished). While the match
  runs, actions come from its live progress (replays/progress.py, written by the runner); once it is finished,
  from the replay. A retried match sends `restart` and starts again from step 0.
- `GET /api/ladders/{id}/feed/?since=`: a `ladder` line (the ladder and `since`), then one `result` line per ladder
  match finished after `since` (default: now).

A feed rebuilds the match's game from the same header as every other reader (replays/live.py: the replay's, or the
match row's with its branch point), so a resampled branch shows the events it was played with. A poll that fails
(actions that do not replay, the database gone) ends the feed with an `error` line, the reply complete, and its cap
slots are given back at once.

Each connection lasts at most LUDUS_FEED_SECONDS, then ends with a `timeout` line; clients reconnect (a match feed
from the start, a ladder feed with `since` set to the last `finished_at`). The server polls the database every
LUDUS_FEED_POLL_SECONDS. Seats of private bots the reader may not see are unnamed (tournaments.visibility).

Served by gunicorn with uvicorn workers (config/asgi.py), a feed waits on the event loop between polls and holds
no worker, so open feeds never keep pages and the API waiting; under WSGI (runserver, the test client) the same polls
run in the request's thread. At most LUDUS_FEED_MAX_PER_CLIENT feeds per client and LUDUS_FEED_MAX_OPEN in all are
open at once (replays/api/feedcaps.py); past either, a 429 names the limit.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError, connection
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, permissions, renderers, serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from replays import live
from replays.api.feedcaps import Lease, open_feed
from replays.models import Replay
from replays.progress import mark_watched
from replays.verify import ReplayMismatch, Resimulation
from tournaments.api.common import errors, to_utc
from tournaments.api.feedlines import (
    LADDER_FEED,
    MATCH_FEED,
    ActionLine,
    EndLine,
    ErrorLine,
    LadderLine,
    LadderTimeoutLine,
    MatchLine,
    MatchTimeoutLine,
    RestartLine,
    ResultLine,
)
from tournaments.models import Ladder, Match, Seat
from tournaments.visibility import PRIVATE_LABEL, hidden_versions, public_action, seat_label

logger = logging.getLogger(__name__)
NDJSON = "application/x-ndjson"
# Under ASGI the feeds' database polls run here, not in a thread per request: two threads, so two database
# connections per web process serve every open feed (a connection per feed would exhaust PostgreSQL's).
DB_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ludus-feed-db")


class NDJSONRenderer(renderers.BaseRenderer):
    """Errors (404, 400, 429) of the feed endpoints, as one JSON line."""

    media_type = NDJSON
    format = "ndjson"
    charset = None

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return line(data)


def line(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), default=str).encode() + b"\n"


def feed_line(kind: type[serializers.Serializer], **values: Any) -> bytes:
    """A line written by the serializer of its kind (tournaments/api/feedlines.py), which the schema describes."""
    return line(_writer(kind).to_representation(values))


@functools.cache
def _writer(kind: type[serializers.Serializer]) -> serializers.Serializer:
    return kind()


class Feed:
    """The clock of one connection: its deadline and the pause between polls."""

    def __init__(self) -> None:
        self.deadline = time.monotonic() + settings.LUDUS_FEED_SECONDS

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def pause_s(self) -> float:
        return max(0.0, min(settings.LUDUS_FEED_POLL_SECONDS, self.deadline - time.monotonic()))


# A poll reads the database once and returns the lines to send and whether the feed is done.
Poll = Callable[[], tuple[list[bytes], bool]]


@dataclass(frozen=True)
class Snapshot:
    """One read of a match for its feeds: its status, its actions so far, and the outcome once finished."""

    at: float
    status: str
    actions: list[dict[str, Any]]
    outcome: dict[str, Any] | None
    header: dict[str, Any] | None = None  # the replay's, once finished

    def is_done(self) -> bool:
        return self.status in (Match.Status.FINISHED, Match.Status.FAILED, Match.Status.CANCELLED)


def read_snapshot(match_id: int) -> Snapshot:
    row = Match.objects.filter(pk=match_id).values("status", "progress__actions").get()
    replay = Replay.objects.filter(match_id=match_id).first() if row["status"] == Match.Status.FINISHED else None
    if replay is not None:
        return Snapshot(time.monotonic(), row["status"], replay.action_log(), replay.footer["outcome"], replay.header)
    if row["status"] == Match.Status.RUNNING:
        mark_watched(match_id)  # the runner keeps the progress current while a feed follows it
    return Snapshot(time.monotonic(), row["status"], list(row["progress__actions"] or []), None)


class Snapshots:
    """The last read of each match in this process, shared by all its feeds for half a poll interval: a match
    that a crowd follows costs one read per interval, not one per spectator."""

    def __init__(self) -> None:
        self.lock, self.read = threading.Lock(), dict[int, Snapshot]()

    def get(self, match_id: int) -> Snapshot:
        with self.lock:
            hit = self.read.get(match_id)
        if hit is not None and time.monotonic() - hit.at < settings.LUDUS_FEED_POLL_SECONDS / 2:
            return hit
        fresh = read_snapshot(match_id)
        with self.lock:
            self.read = {key: old for key, old in self.read.items() if fresh.at - old.at < 60}
            self.read[match_id] = fresh
        return fresh


SNAPSHOTS = Snapshots()


class MatchTail:
    """A match's actions with their public events (never a choice), from its progress or its replay."""

    def __init__(self, match: Match, feed: Feed) -> None:
        self.match, self.feed, self.sent = match, feed, 0
        self.sim: Resimulation | None = None

    def poll(self) -> tuple[list[bytes], bool]:
        snapshot = SNAPSHOTS.get(self.match.pk)
        lines = []
        if len(snapshot.actions) < self.sent:  # the match was retried: its progress starts again
            lines.append(feed_line(RestartLine, type="restart"))
            self.sim, self.sent = None, 0
        try:
            for record in snapshot.actions[self.sent:]:
                if self.sim is None:
                    self.sim = live.rebuilt(self.match, snapshot.header)
                events = self.sim.step(self.sent, record)
                self.sent += 1
                lines.append(feed_line(ActionLine, type="action", step=self.sent, **public_action(record),
                                       events=events))
        except ReplayMismatch as exc:
            return [*lines, error_line(live.not_replayable(self.match.pk, exc))], True
        if snapshot.is_done():
            outcome = {} if snapshot.outcome is None else {"outcome": snapshot.outcome}
            return [*lines, feed_line(EndLine, type="end", status=snapshot.status, steps=self.sent, **outcome)], True
        if self.feed.expired():
            return [*lines, feed_line(MatchTimeoutLine, type="timeout", steps=self.sent)], True
        return lines, False


def match_line(match: Match, user: Any) -> bytes:
    seats = Seat.objects.filter(match=match).select_related("bot_version__bot").order_by("number")
    return feed_line(MatchLine, type="match", match=match.pk, game=match.game, status=match.status,
                     players=match.num_players, seats=[_seat(user, s) for s in seats])


def _seat(user: Any, seat: Seat) -> dict[str, Any]:
    label = seat_label(user, seat.bot_version)
    if label == PRIVATE_LABEL:
        return {"seat": seat.number, "bot_version": None, "bot": PRIVATE_LABEL, "version": None}
    return {"seat": seat.number, "bot_version": seat.bot_version_id, "bot": seat.bot_version.bot.name,
            "version": seat.bot_version.number}


class LadderTail:
    """A ladder's results, one line per match finished since the cursor."""

    def __init__(self, ladder_id: int, since: datetime, feed: Feed, user: Any) -> None:
        self.ladder_id, self.cursor, self.feed, self.user = ladder_id, (since, 0), feed, user

    def poll(self) -> tuple[list[bytes], bool]:
        since, last = self.cursor
        finished = list(Match.objects.filter(ladder_id=self.ladder_id, status=Match.Status.FINISHED,
                                             finished_at__gte=since)
                        .exclude(finished_at=since, pk__lte=last)
                        .prefetch_related("seats__bot_version__bot").order_by("finished_at", "pk")[:100])
        hidden = hidden_versions(self.user, [s.bot_version_id for m in finished for s in m.seats.all()])
        lines = [feed_line(ResultLine, type="result", match=match.pk, finished_at=match.finished_at, rated=match.rated,
                           seats=[_seat_result(seat, hidden) for seat in match.seats.all()])
                 for match in finished]
        if finished:
            assert finished[-1].finished_at is not None
            self.cursor = (finished[-1].finished_at, finished[-1].pk)
        if self.feed.expired():
            return [*lines, feed_line(LadderTimeoutLine, type="timeout", since=self.cursor[0])], True
        return lines, False


def _seat_result(seat: Seat, hidden: set[int]) -> dict[str, Any]:
    result = {"seat": seat.number, "bot_version": seat.bot_version_id, "bot": seat.bot_version.bot.name,
              "version": seat.bot_version.number, "score": seat.score, "rank": seat.rank,
              "forfeited": seat.forfeited, "rating_mu_before": seat.rating_mu_before,
              "rating_mu_after": seat.rating_mu_after}
    if seat.bot_version_id in hidden:
        result.update(bot_version=None, bot=PRIVATE_LABEL, version=None, rating_mu_before=None,
                      rating_mu_after=None)
    return result


def error_line(detail: str) -> bytes:
    return feed_line(ErrorLine, type="error", detail=detail)


def sync_lines(first: bytes, poll: Poll, feed: Feed, lease: Lease) -> Iterator[bytes]:
    """The feed for a WSGI server (runserver, the test client): each poll, then a sleep, in the request's thread."""
    try:
        yield first  # at once: the client (and any proxy) sees the stream is open before the first poll has news
        while True:
            lines, done = _polled(poll)
            yield from lines
            if done:
                return
            time.sleep(feed.pause_s())
    finally:
        lease.release()


async def async_lines(first: bytes, poll: Poll, feed: Feed, lease: Lease) -> AsyncIterator[bytes]:
    """The feed under ASGI: it waits on the event loop, holding no thread, and polls in the feeds' threads."""
    try:
        yield first  # at once: the client (and any proxy) sees the stream is open before the first poll has news
        while True:
            lines, done = await sync_to_async(_polled, thread_sensitive=False, executor=DB_THREADS)(poll)
            for each in lines:
                yield each
            if done:
                return
            await asyncio.sleep(feed.pause_s())
    finally:
        # Here and not only in FeedResponse.close: Django's ASGI handler skips close() when a stream raises, and
        # the slots would then be held until they expire.
        lease.release()


def _polled(poll: Poll) -> tuple[list[bytes], bool]:
    """One poll, whose database connection lives on between polls; a broken one (the database restarted) is
    dropped. A poll that fails ends the feed with an error line, never a cut reply."""
    try:
        return poll()
    except Exception as exc:
        if isinstance(exc, DatabaseError):
            connection.close()
        logger.exception("a live feed's poll failed")
        return [error_line(f"the feed stopped on a server error ({type(exc).__name__}): reconnect to follow on")], True


class FeedResponse(StreamingHttpResponse):
    """A feed's NDJSON stream; closing it (the end, or the client going away) gives its cap slots back."""

    def __init__(self, request: Request, first: bytes, poll: Poll, feed: Feed, lease: Lease) -> None:
        is_async = isinstance(getattr(request, "_request", request), ASGIRequest)
        if is_async:  # the polls use the feed threads' connections: the request's goes back to the pool now, not
            connection.close()  # when the feed ends (docs/operations.md#database-connections)
        lines = async_lines(first, poll, feed, lease) if is_async else sync_lines(first, poll, feed, lease)
        super().__init__(lines, content_type=NDJSON)
        self.lease = lease
        self["Cache-Control"] = "no-cache"
        self["X-Accel-Buffering"] = "no"  # let a proxy pass each line at once

    def close(self) -> None:
        self.lease.release()
        super().close()


class MatchFeedView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [renderers.JSONRenderer, NDJSONRenderer]

    @extend_schema(tags=["replays"], summary="Live feed of a match's actions and public events (NDJSON)",
                   responses={(200, NDJSON): MATCH_FEED, **errors(404, 429)})
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        match = get_object_or_404(Match, pk=pk)
        feed, lease = Feed(), open_feed(request)
        return FeedResponse(request, match_line(match, request.user), MatchTail(match, feed).poll, feed, lease)


class LadderFeedView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [renderers.JSONRenderer, NDJSONRenderer]

    @extend_schema(tags=["ladders"], summary="Live feed of a ladder's new results (NDJSON)",
                   parameters=[OpenApiParameter("since", OpenApiTypes.DATETIME,
                                                description="results finished at or after this; default now")],
                   responses={(200, NDJSON): LADDER_FEED, **errors(400, 404, 429)})
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        ladder = get_object_or_404(Ladder, pk=pk)
        unknown = sorted(set(request.query_params) - {"since"})
        if unknown:
            raise exceptions.ValidationError({name: [f"unknown parameter {name!r}"] for name in unknown})
        since = timezone.now()
        if "since" in request.query_params:
            raw = request.query_params["since"]
            try:
                parsed = parse_datetime(raw)
            except ValueError:
                parsed = None
            if parsed is None:
                raise exceptions.ValidationError({"since": [f"since must be an ISO 8601 date-time, got {raw!r}"]})
            since = to_utc(parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed), "since")
        feed, lease = Feed(), open_feed(request)
        first = feed_line(LadderLine, type="ladder", ladder=ladder.pk, since=since)
        return FeedResponse(request, first, LadderTail(ladder.pk, since, feed, request.user).poll, feed, lease)
