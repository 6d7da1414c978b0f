"""Branches over the API (docs/branches.md).

- `POST /api/matches/{id}/branches/`: branch a finished match at a step (throttled, scope `matches`); 201 with the
  queued branches. One 400 per bad input, naming the field; 403 when the requester may not branch it now.
- `GET /api/matches/{id}/branches/`: the match's branches, newest first, and its resampled batches summarised.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from replays.branch_batches import batches
from replays.branches import MAX_GAMES, BranchForbidden, BranchRefused, BranchRequest, create_branches
from tournaments.api.common import ReadOnlyOrAuthenticated, StrictSerializer, errors
from tournaments.api.matches import MatchCreateThrottle, MatchSerializer, match_data, match_values
from tournaments.models import Match
from tournaments.numbers import is_whole


class BranchRequestSerializer(StrictSerializer):
    step = serializers.IntegerField(help_text="branch after the parent's step K (0: from the start); with `force`, "
                                              "step K itself is replaced")
    seats = serializers.DictField(child=serializers.CharField(), required=False, default=dict,
                                  help_text='seat number -> a built-in bot ("greedy") or a bot version id you may '
                                            "seat; other seats keep their bots")
    force = serializers.IntegerField(required=False, allow_null=True, default=None,
                                     help_text="play this option (an index into step K's options) as step K")
    games = serializers.IntegerField(required=False, default=1, help_text=f"1 to {MAX_GAMES}; more than 1 needs "
                                                                          "resample")
    resample = serializers.BooleanField(required=False, default=False,
                                        help_text="re-deal what no seat has seen at the branch point, per game")
    seed = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0,
                                    help_text="the seed the resampled futures derive from (default: a new one)")

    def validate_seats(self, seats: dict[str, str]) -> dict[int, str]:
        numbers = {}
        for key, bot in seats.items():
            if not is_whole(str(key)):
                raise serializers.ValidationError(f"{key!r} is not a seat number")
            numbers[int(key)] = bot
        return numbers


class BatchIntervalSerializer(serializers.Serializer):
    mean = serializers.FloatField()
    low = serializers.FloatField(help_text="95 % interval")
    high = serializers.FloatField()
    n = serializers.IntegerField()


class BatchRangeSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()


class BatchSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="counted from 1")
    parent_score = serializers.IntegerField(allow_null=True)
    parent_won = serializers.BooleanField()
    games = serializers.IntegerField(help_text="finished games of the batch")
    wins = serializers.IntegerField(help_text="games of the batch the seat won (first place, ties included)")
    win_rate = BatchIntervalSerializer(allow_null=True, help_text="Wilson 95 % interval")
    score = BatchIntervalSerializer(allow_null=True, help_text="mean score, normal 95 % interval")
    usual = BatchRangeSerializer(allow_null=True, help_text="where 95 % of the batch's games score (all seats at once)")


class BatchSerializer(serializers.Serializer):
    step = serializers.IntegerField(allow_null=True)
    force = serializers.IntegerField(allow_null=True)
    branches = serializers.ListField(child=serializers.IntegerField())
    games = serializers.IntegerField()
    finished = serializers.IntegerField()
    seats = BatchSeatSerializer(many=True)
    said = serializers.CharField(help_text="whether the change made a difference the batch can see, in words")


class BranchListSerializer(serializers.Serializer):
    branches = MatchSerializer(many=True)
    batches = BatchSerializer(many=True, help_text="the resampled branches grouped by step, forced option and bots, "
                                                   "each summarised against the parent (docs/branches.md#batches)")


class BranchesView(APIView):
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_classes = [MatchCreateThrottle]
    throttle_scope = "matches"

    @extend_schema(tags=["matches"], summary="A match's branches, newest first",
                   responses={200: BranchListSerializer, **errors(404)})
    def get(self, request: Request, pk: int) -> Response:
        parent = get_object_or_404(Match, pk=pk)
        return Response({"branches": branch_rows(request.user, parent), "batches": batch_rows(parent)})

    @extend_schema(tags=["matches"], summary="Branch a finished match at a step (throttled)",
                   description="Only a finished match can be branched: for a match that is queued, running, failed "
                               "or cancelled the answer is a 400 naming `match`.",
                   request=BranchRequestSerializer,
                   responses={201: BranchListSerializer, **errors(400, 401, 403, 404, 429)})
    def post(self, request: Request, pk: int) -> Response:
        parent = get_object_or_404(Match, pk=pk)
        form = BranchRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            matches = create_branches(parent, request.user, BranchRequest(**form.validated_data))
        except BranchRefused as exc:
            raise exceptions.ValidationError({exc.field: [str(exc)]}) from exc
        except BranchForbidden as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        rows = match_data(list(match_values(Match.objects.filter(pk__in=[m.pk for m in matches]))), request.user)
        return Response({"branches": rows, "batches": batch_rows(parent)}, status=status.HTTP_201_CREATED)


def batch_rows(parent: Match) -> list[dict[str, Any]]:
    """The parent's batches as the API writes them (BatchSerializer). Seat numbers and scores only: no seed, view or
    bot name, so nothing the parent's own rows do not show."""
    return list(BatchSerializer(batches(parent), many=True).data)


def branch_rows(user: Any, parent: Match) -> list[dict[str, Any]]:
    """The match's branches as the API shows them to this user."""
    return match_data(list(match_values(Match.objects.filter(parent=parent).order_by("-pk"))), user)
