"""Replays over the API: the header and footer, the action log, and frames by step range and seat.

- `GET /api/matches/{id}/replay/`: header and footer (finished matches only).
- `GET /api/matches/{id}/replay/actions/`: the action log (finished matches only).
- `GET /api/matches/{id}/frames/?start=&stop=&seat=`: frames derived by re-simulation (replays/frames.py), at most
  100 per request. Without `seat`, the omniscient view. tournaments/visibility.py says who sees what. For a match
  still running, the frames so far come from its live progress.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
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
from tournaments.api.common import ERROR, StrictSerializer, errors
from tournaments.models import Match
from tournaments.visibility import can_see_seat, can_see_secrets, is_over, seat_frames, shown_header


class ReplaySerializer(serializers.Serializer):
    """A replay's header and footer; the header's hidden seats keep only their number (tournaments.visibility)."""

    match = serializers.IntegerField(source="match_id")
    format_version = serializers.IntegerField()
    header = serializers.JSONField(help_text="format, game, rules_version, options, seed, players, clock, seats")
    footer = serializers.JSONField(help_text="outcome, faults, forfeited, digest")
    size = serializers.IntegerField(help_text="bytes of the compressed action log")
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


# An action record as stored (replays/format.py): its keys in their stored order (sorted), then `step`.
class ActionSerializer(serializers.Serializer):
    choice = serializers.IntegerField(required=False, help_text="index into the decision's options")
    cpu_ms = serializers.IntegerField(required=False, help_text="the move's CPU time, for a sandboxed seat")
    fault = serializers.CharField(required=False)
    ms = serializers.IntegerField(required=False)
    seat = serializers.IntegerField()
    step = serializers.IntegerField(required=False, help_text="the step this decision makes: the Nth decision of the "
                                                              "game is step N, as in the viewer and the CLI")


class ActionLogSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    actions = ActionSerializer(many=True)


class FrameSerializer(serializers.Serializer):
    step = serializers.IntegerField()
    action = ActionSerializer(allow_null=True)
    events = serializers.ListField(child=serializers.JSONField())
    view = serializers.JSONField()
    decision = serializers.JSONField(allow_null=True)


class FramePageSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    status = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True, help_text="null: the omniscient view")
    steps = serializers.IntegerField(help_text="actions so far; frames run from 0 to steps")
    frames = FrameSerializer(many=True)


class FrameQuery(StrictSerializer):
    start = serializers.IntegerField(min_value=0, default=0)
    stop = serializers.IntegerField(min_value=1, required=False, help_text=f"exclusive; at most start+{MAX_FRAMES}")
    seat = serializers.IntegerField(min_value=0, required=False, help_text="omit for the omniscient view")

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


class FramesView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        tags=["replays"], summary="Frames (the view after each step) by step range and seat",
        description=f"Frames `start` (default 0) up to `stop` (exclusive; default start+{MAX_FRAMES}): `stop` must be "
                    f"greater than `start`, and at most {MAX_FRAMES} frames per request, or the answer is a 400 naming "
                    "the rule. "
                    "`seat` must be one of the match's seats. "
                    "Omniscient frames (no `seat`) only once the match is finished, except for staff. A seat's "
                    "frames while the match is not finished only for that seat's bot owner and staff; choice "
                    "indexes of other seats are left out of those live frames.",
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
        if seat is not None and seat >= match.num_players:
            raise exceptions.ValidationError({"seat": [f"match {pk} has seats 0 to {match.num_players - 1}"]})
        over = is_over(match)
        self._check_access(request, match, seat, over)
        src = live.source(match)
        document = src.document if src is not None else {"header": live.live_header(match), "actions": []}
        try:
            page = frames(document, start, stop, seat) if start <= len(document["actions"]) else []
        except ReplayMismatch as exc:
            raise NotReplayable(live.not_replayable(match.pk, exc)) from exc
        return Response(FramePageSerializer({"match": match.pk, "status": match.status, "seat": seat,
                                             "steps": len(document["actions"]),
                                             "frames": seat_frames(page, seat, over)}).data)

    def _check_access(self, request: Request, match: Match, seat: int | None, over: bool) -> None:
        user = request.user
        if can_see_secrets(user, over) or (seat is not None and can_see_seat(user, match, seat, over)):
            return
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated("log in as the seat's bot owner to see this seat while the match runs")
        what = "the omniscient view" if seat is None else f"seat {seat}'s view"
        raise exceptions.PermissionDenied(f"{what} of match {match.pk} is hidden until the match is finished "
                                          "(a private bot's validation match: for its owner only)")

