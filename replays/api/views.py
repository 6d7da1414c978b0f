"""Replays over the API: the header and footer, the action log, and frames by step range and view.

- `GET /api/matches/{id}/replay/`: header and footer (finished matches only).
- `GET /api/matches/{id}/replay/actions/`: the action log (finished matches only).
- `GET /api/matches/{id}/frames/?start=&stop=&seat=`: frames derived by re-simulation (replays/frames.py), at most
  MAX_FRAMES per request, in a seat's view, the public one (`seat=public`) or, without `seat`, the omniscient one.
  tournaments/visibility.py says who sees what. For a match still running, the frames so far come from its live
  progress. The one frames endpoint: the replay viewer reads it too, with the page's session cookie.
"""

from __future__ import annotations

import re
from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.gzip import gzip_page
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import exceptions, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from replays import live
from replays.frames import MAX_FRAMES, frames
from replays.links import step_of
from replays.models import Replay
from replays.verify import ReplayMismatch
from replays.views import cache_if_over
from tournaments.api.common import ERROR, StrictSerializer, errors
from tournaments.models import Match
from tournaments.visibility import PUBLIC, can_see_seat, can_see_secrets, is_over, seat_frames, shown_header


class ReplaySerializer(serializers.Serializer):
    """A replay's header and footer; the header's hidden seats keep only their number (tournaments.visibility)."""

    match = serializers.IntegerField(source="match_id")
    format_version = serializers.IntegerField()
    header = serializers.JSONField(help_text="format, game, rules_version, options, seed, players, clock, seats")
    footer = serializers.JSONField(help_text="outcome, faults, forfeited, digest")
    size = serializers.IntegerField(help_text="bytes of the compressed action log")
    verification = serializers.ChoiceField(choices=Replay.Verification.choices, help_text="verifying: not yet "
                                           "re-simulated (each replay is, right after its result is recorded)")
    steps = serializers.SerializerMethodField(help_text="number of actions; frames run from 0 to steps")
    viewer = serializers.SerializerMethodField(help_text="the replay viewer; add #step=N&view=SEAT to open a step")

    def get_steps(self, replay: Replay) -> int:
        return len(replay.action_log())

    @extend_schema_field(serializers.URLField())
    def get_viewer(self, replay: Replay) -> str:
        return str(self.context["request"].build_absolute_uri(reverse("replays:viewer", args=[replay.match_id])))

    def to_representation(self, replay: Replay) -> dict[str, Any]:
        data: dict[str, Any] = super().to_representation(replay)
        data["header"] = shown_header(self.context["request"].user, data["header"])
        return data


# An action record as stored (replays/format.py): its keys in their stored order (sorted).
class ActionRecordSerializer(serializers.Serializer):
    choice = serializers.IntegerField(required=False, help_text="index into the decision's options; left out of "
                                                               "another seat's action while the match is not over")
    cpu_ms = serializers.IntegerField(required=False, help_text="the move's CPU time, for a sandboxed seat")
    fault = serializers.CharField(required=False)
    forced = serializers.BooleanField(required=False, help_text="a branch's forced step (docs/branches.md)")
    ms = serializers.IntegerField(required=False)
    seat = serializers.IntegerField()


class ActionSerializer(ActionRecordSerializer):
    step = serializers.IntegerField(required=False, help_text="the step this decision makes: the Nth decision of the "
                                                              "game is step N, as in the viewer and the CLI")


class ActionLogSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    actions = ActionSerializer(many=True)


class DecisionSerializer(serializers.Serializer):
    """A decision as the frame's view may see it: the options and prompt only in the deciding seat's view and the
    omniscient one (another seat's options could tell its hand)."""

    seat = serializers.IntegerField(help_text="the seat that decides")
    kind = serializers.CharField()
    options = serializers.ListField(child=serializers.JSONField(), required=False,
                                    help_text="the legal actions, in the order the bot receives them")
    prompt = serializers.CharField(required=False, allow_blank=True)


class DecidedSerializer(ActionRecordSerializer, DecisionSerializer):
    """The decision that led to a frame, as its view may see it, with the action's record: the options (when shown)
    and the choice index into them."""


class FrameSerializer(serializers.Serializer):
    step = serializers.IntegerField()
    action = ActionRecordSerializer(allow_null=True, help_text="the action that led here; null at step 0")
    events = serializers.ListField(child=serializers.JSONField(), help_text="the public events of that action")
    view = serializers.JSONField(help_text="the game's view (engine State.view) for this frame's view")
    decision = DecisionSerializer(allow_null=True, help_text="the decision pending here; null once the game is over")
    decided = DecidedSerializer(allow_null=True, help_text="the decision that led here; null at step 0")


@extend_schema_field({"oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": [PUBLIC]}]})
class ViewSeatField(serializers.Field):
    """A frame's view: a seat number, or "public" (what every seat sees)."""

    default_error_messages = {"invalid": f"seat must be a seat number (0, 1, ...) or {PUBLIC!r}, got {{input!r}}"}

    def to_internal_value(self, data: Any) -> int | str:
        if data == PUBLIC:
            return PUBLIC
        if isinstance(data, str) and re.fullmatch(r"[0-9]{1,18}", data):
            return int(data)
        self.fail("invalid", input=data)

    def to_representation(self, value: int | str) -> int | str:
        return value


class FramePageSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    status = serializers.CharField()
    finished = serializers.BooleanField(help_text="the action log is complete (the replay is stored); before, the "
                                                  "frames so far come from the match's live progress")
    seat = ViewSeatField(allow_null=True, help_text=f"the view: a seat, {PUBLIC!r}, or null for the omniscient one")
    steps = serializers.IntegerField(help_text="actions so far; frames run from 0 to steps")
    frames = FrameSerializer(many=True)


class FrameQuery(StrictSerializer):
    start = serializers.IntegerField(min_value=0, default=0)
    stop = serializers.IntegerField(min_value=1, required=False, help_text=f"exclusive; at most start+{MAX_FRAMES}")
    seat = ViewSeatField(required=False, help_text=f"a seat's view, or {PUBLIC!r}: what every seat sees (anyone, "
                                                    "any time); omit for the omniscient view")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        stop = attrs.setdefault("stop", attrs["start"] + MAX_FRAMES)
        if stop <= attrs["start"]:
            raise exceptions.ValidationError({"stop": ["stop must be greater than start"]})
        if stop - attrs["start"] > MAX_FRAMES:
            raise exceptions.ValidationError({"stop": [f"at most {MAX_FRAMES} frames per request"]})
        return attrs


def finished_replay(match_id: int, user: Any) -> Replay:
    """The replay, once the user may see all of it (tournaments.visibility); a 404 before."""
    replay = Replay.objects.select_related("match").filter(match_id=match_id).first()
    if replay is None:
        get_object_or_404(Match, pk=match_id)
        raise exceptions.NotFound(f"match {match_id} has no replay yet; it has one once it is finished")
    if not can_see_secrets(user, is_over(replay.match)):
        raise exceptions.NotFound(f"match {match_id}'s replay opens once every game of its set is finished")
    return replay


class ReplayView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(tags=["replays"], summary="A finished match's replay header and footer",
                   responses={200: ReplaySerializer, **errors(404)})
    def get(self, request: Request, pk: int) -> Response:
        replay = finished_replay(pk, request.user)
        return Response(ReplaySerializer(replay, context={"request": request}).data)


class ActionLogView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(tags=["replays"], summary="A finished match's action log",
                   responses={200: ActionLogSerializer, **errors(404)})
    def get(self, request: Request, pk: int) -> Response:
        replay = finished_replay(pk, request.user)
        actions = [dict(action, step=step_of(index)) for index, action in enumerate(replay.action_log())]
        return Response(ActionLogSerializer({"match": replay.match_id, "actions": actions}).data)


class NotReplayable(exceptions.APIException):
    """A match whose stored actions do not replay: the server's fault, said as JSON like every other error."""

    status_code = 500
    default_code = "not_replayable"


@method_decorator(gzip_page, name="dispatch")  # a page of frames repeats the board from step to step
class FramesView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        tags=["replays"], summary="Frames (the view after each step) by step range and view",
        description=f"Frames `start` (default 0) up to `stop` (exclusive; default start+{MAX_FRAMES}): `stop` must be "
                    f"greater than `start`, and at most {MAX_FRAMES} frames per request, or the answer is a 400 naming "
                    "the rule. "
                    "`seat` must be one of the match's seats, or `public`: the view every seat shares, for anyone at "
                    "any time. "
                    "Omniscient frames (no `seat`) only once the match is over, except for staff. A seat's "
                    "frames while the match is not over only for that seat's bot owner and staff; choice "
                    "indexes of other seats (in the public view, of every seat) are left out of those frames. "
                    "Each frame carries the decision pending there and the one that led to it (`decided`), with "
                    "their options only where the view may see them. The replay viewer reads its frames here, "
                    "logged in by its session cookie. A match that is over answers `Cache-Control: public`.",
        parameters=[FrameQuery],
        responses={200: FramePageSerializer, **errors(400, 401, 403, 404),
                   500: OpenApiResponse(ERROR, description="the match's stored actions do not replay")},
    )
    def get(self, request: Request, pk: int) -> Response:
        match = get_object_or_404(Match, pk=pk)
        query = FrameQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        start, stop, seat = query.validated_data["start"], query.validated_data["stop"], query.validated_data.get(
            "seat")
        if isinstance(seat, int) and seat >= match.num_players:
            raise exceptions.ValidationError({"seat": [f"match {pk} has seats 0 to {match.num_players - 1}"]})
        over = is_over(match)
        self._check_access(request, match, seat, over)
        src = live.source(match)
        if src is None and seat == PUBLIC:  # before play nobody but owners and staff sees a frame (docs/api.md)
            raise exceptions.NotFound(f"match {pk} is {match.status}: its public view opens once it plays")
        document = src.document if src is not None else {"header": live.live_header(match), "actions": []}
        try:
            page = frames(document, start, stop, seat) if start <= len(document["actions"]) else []
        except ReplayMismatch as exc:
            raise NotReplayable(live.not_replayable(match.pk, exc)) from exc
        body = {"match": match.pk, "status": match.status, "finished": bool(src and src.is_finished), "seat": seat,
                "steps": len(document["actions"]), "frames": seat_frames(page, seat, over)}
        return cache_if_over(Response(FramePageSerializer(body).data), over)

    def _check_access(self, request: Request, match: Match, seat: int | str | None, over: bool) -> None:
        user = request.user
        if seat == PUBLIC or can_see_secrets(user, over) or (
                isinstance(seat, int) and can_see_seat(user, match, seat, over)):
            return
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated("log in as the seat's bot owner to see this seat while the match runs")
        what = "the omniscient view" if seat is None else f"seat {seat}'s view"
        raise exceptions.PermissionDenied(f"{what} of match {match.pk} is hidden until the match is finished "
                                          "(a private bot's validation match: for its owner only)")
