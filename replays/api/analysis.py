"""Match analyses over the API (docs/analysis.md).

- `POST /api/matches/{id}/analysis/` `{"seat": N, "bot": "greedy", "games": G}`: the analysis of seat N (counted from
  1) by that built-in bot, G playouts per option: the cached one (200), or a new one queued on the workers (202).
  Throttled with the match requests. One 400 per bad input, naming the field; 403 while the match is not over.
- `GET /api/matches/{id}/analysis/`: the match's analyses, newest first, each with its decisions so far (an empty
  list for a match that has not finished; 403 while it is not over).
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from replays import analysis
from replays.analysis_jobs import (
    AnalysisForbidden,
    AnalysisRefused,
    AnalysisRequest,
    request_analysis,
    summary,
    visible_analyses,
)
from replays.models import Analysis
from tournaments.api.common import ReadOnlyOrAuthenticated, StrictSerializer, errors
from tournaments.api.matches import MatchCreateThrottle
from tournaments.models import Match


class AnalysisRequestSerializer(StrictSerializer):
    seat = serializers.IntegerField(required=False, default=1, help_text="the seat to analyse, counted from 1")
    bot = serializers.CharField(required=False, default="greedy",
                                help_text="the built-in bot that plays every playout (greedy, random, greedy_epsNN)")
    games = serializers.IntegerField(required=False, default=analysis.DEFAULT_GAMES,
                                     help_text=f"playouts per option, 1 to {analysis.MAX_GAMES}")


class AnalysisLossSerializer(serializers.Serializer):
    best = serializers.IntegerField(help_text="the option best by this measure")
    loss = serializers.FloatField(help_text="what the played option gave up against it (mean of paired games)")
    se = serializers.FloatField(help_text="the standard error of that mean")
    of = serializers.FloatField(help_text="the best option's mean")


class AnalysisLossesSerializer(serializers.Serializer):
    score = AnalysisLossSerializer(help_text="expected final score")
    wins = AnalysisLossSerializer(help_text="win rate (first place, ties included)")


class AnalysisOptionSerializer(serializers.Serializer):
    option = serializers.IntegerField(help_text="the option's index in the decision")
    games = serializers.IntegerField(help_text="playouts (1: left after the cheap first pass)")
    score = serializers.FloatField(help_text="mean final score of the seat")
    wins = serializers.FloatField(help_text="share of playouts the seat won")
    events = serializers.ListField(child=serializers.JSONField(), help_text="the public events the option causes")


class AnalysisDecisionSerializer(serializers.Serializer):
    step = serializers.IntegerField(help_text="the step the decision made (the viewer's step)")
    seat = serializers.SerializerMethodField(help_text="counted from 1")
    kind = serializers.CharField()
    played = serializers.IntegerField(help_text="the option played in the match")
    best = serializers.IntegerField(help_text="the best option by expected score")
    mark = serializers.CharField(allow_null=True, help_text="inaccuracy, mistake, blunder, or null")
    loss = AnalysisLossesSerializer()
    options = AnalysisOptionSerializer(many=True)

    def get_seat(self, entry: dict[str, Any]) -> int:
        return int(entry["seat"]) + 1


class AnalysisMarksSerializer(serializers.Serializer):
    inaccuracy = serializers.IntegerField()
    mistake = serializers.IntegerField()
    blunder = serializers.IntegerField()


class AnalysisSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    match = serializers.IntegerField(source="match_id")
    seat = serializers.SerializerMethodField(help_text="counted from 1")
    bot = serializers.CharField()
    games = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Analysis.Status.choices)
    total = serializers.IntegerField(help_text="decisions to analyse")
    done = serializers.IntegerField(help_text="decisions analysed so far")
    marks = AnalysisMarksSerializer()
    seconds = serializers.FloatField(help_text="worker time spent")
    decisions_per_minute = serializers.FloatField(allow_null=True, help_text="decisions analysed per worker minute")
    error = serializers.CharField()
    decisions = AnalysisDecisionSerializer(many=True, source="steps")

    def get_seat(self, row: Analysis) -> int:
        return row.seat + 1

    def to_representation(self, instance: Analysis) -> dict[str, Any]:
        for key, value in summary(instance).items():
            setattr(instance, key, value)
        return super().to_representation(instance)


class AnalysisListSerializer(serializers.Serializer):
    analyses = AnalysisSerializer(many=True)


class AnalysisView(APIView):
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_classes = [MatchCreateThrottle]
    throttle_scope = "matches"

    @extend_schema(tags=["matches"], summary="A match's analyses, newest first (none before it finishes)",
                   responses={200: AnalysisListSerializer, **errors(403, 404)})
    def get(self, request: Request, pk: int) -> Response:
        match = get_object_or_404(Match, pk=pk)
        try:
            rows = visible_analyses(request.user, match)
        except AnalysisRefused:  # a match that is not finished has none (only a finished one can be analysed)
            rows = []
        except AnalysisForbidden as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        return Response(AnalysisListSerializer({"analyses": rows}).data)

    @extend_schema(tags=["matches"], summary="Analyse a seat of a finished match move by move (throttled)",
                   description="Only a finished match can be analysed: for a match that is queued, running, failed "
                               "or cancelled the answer is a 400 naming `match`.",
                   request=AnalysisRequestSerializer,
                   responses={200: AnalysisSerializer, 202: AnalysisSerializer, **errors(400, 401, 403, 404, 429)})
    def post(self, request: Request, pk: int) -> Response:
        match = get_object_or_404(Match, pk=pk)
        form = AnalysisRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            row = request_analysis(match, request.user, AnalysisRequest(**form.validated_data))
        except AnalysisRefused as exc:
            raise exceptions.ValidationError({exc.field: [str(exc)]}) from exc
        except AnalysisForbidden as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        done = row.status == Analysis.Status.FINISHED
        return Response(AnalysisSerializer(row).data, status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)
