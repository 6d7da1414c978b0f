"""Branches over the API (docs/branches.md).

- `POST /api/matches/{id}/branches/`: branch a finished match at a step (throttled, scope `matches`); 201 with the
  queued branches. One 400 per bad input, naming the field; 403 when the requester may not branch it now.
- `GET /api/matches/{id}/branches/`: the match's branches, newest first.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from replays.branches import MAX_GAMES, BranchForbidden, BranchRefused, BranchRequest, create_branches
from tournaments.api.common import ReadOnlyOrAuthenticated, StrictSerializer, errors
from tournaments.api.matches import MatchCreateThrottle, MatchSerializer, match_data, match_values
from tournaments.models import Match


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
            if not str(key).isdigit():
                raise serializers.ValidationError(f"{key!r} is not a seat number")
            numbers[int(key)] = bot
        return numbers


class BranchListSerializer(serializers.Serializer):
    branches = MatchSerializer(many=True)


class BranchesView(APIView):
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_classes = [MatchCreateThrottle]
    throttle_scope = "matches"

    @extend_schema(tags=["matches"], summary="A match's branches, newest first",
                   responses={200: BranchListSerializer, **errors(404)})
    def get(self, request: Request, pk: int) -> Response:
        return Response({"branches": branch_rows(request.user, get_object_or_404(Match, pk=pk))})

    @extend_schema(tags=["matches"], summary="Branch a finished match at a step (throttled)",
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
        return Response({"branches": rows}, status=status.HTTP_201_CREATED)


def branch_rows(user: Any, parent: Match) -> list[dict[str, Any]]:
    """The match's branches as the API shows them to this user."""
    return match_data(list(match_values(Match.objects.filter(parent=parent).order_by("-pk"))), user)
