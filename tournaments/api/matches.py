"""Matches, their seats, and standings (ARCHITECTURE §7, §8).

- `GET /api/matches/`: filterable by game, bot, bot version, ladder, tournament, status and dates; newest first.
- `GET /api/matches/{id}/`: one match with its seats. A seat's captured stderr (`log`) only for its bot's owner
  and staff.
- `POST /api/matches/`: request a ladder match between active versions, one of them yours (throttled, scope
  `matches`). Requests by authors are unrated; organisers of the ladder and staff may ask for rated ones.
- `GET /api/ladders/{id}/standings/` and `GET /api/tournaments/{id}/standings/`: the tables, paginated.
"""

from __future__ import annotations

import random
from typing import Any

import django_filters
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, generics, mixins, permissions, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from tournaments.api.common import (
    CursorPagination,
    GameFilter,
    ReadOnlyOrAuthenticated,
    StrictSerializer,
    UtcDateTimeFilter,
    errors,
    is_staff,
)
from tournaments.models import BotVersion, Ladder, Match, Rating, Seat, Tournament
from tournaments.services import enqueue_match
from tournaments.standings import Standing, tournament_standings


class SeatSerializer(serializers.ModelSerializer):
    bot_version = serializers.IntegerField(source="bot_version_id", read_only=True)
    bot = serializers.IntegerField(source="bot_version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="bot_version.bot.name", read_only=True)
    version = serializers.IntegerField(source="bot_version.number", read_only=True)
    owner = serializers.CharField(source="bot_version.bot.owner.get_username", read_only=True)
    log = serializers.SerializerMethodField(help_text="the seat's stderr: only for the bot's owner and staff")

    class Meta:
        model = Seat
        fields = ["number", "bot_version", "bot", "bot_name", "version", "owner", "score", "rank", "faults",
                  "forfeited", "rating_mu_before", "rating_mu_after", "rating_sigma_before", "rating_sigma_after",
                  "log"]
        read_only_fields = fields

    def get_log(self, seat: Seat) -> str | None:
        user = self.context["request"].user
        if is_staff(user) or (user.is_authenticated and seat.bot_version.bot.owner_id == user.pk):
            return seat.log
        return None


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    has_replay = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = ["id", "game", "ladder", "tournament", "round", "num_players", "seed", "options", "status",
                  "rated", "attempts", "move_ms", "bank_ms", "max_faults", "created_at", "started_at",
                  "finished_at", "seats", "has_replay"]
        read_only_fields = fields

    def get_has_replay(self, match: Match) -> bool:
        return match.status == Match.Status.FINISHED

    def to_representation(self, match: Match) -> dict[str, Any]:
        """The declared fields, built directly: lists of 100 matches are the API's hot path (benchmarks/api.py)."""
        user = self.context["request"].user
        staff, user_id = is_staff(user), user.pk if user.is_authenticated else None
        data = {name: getattr(match, name) for name in _PLAIN_MATCH_FIELDS}
        data.update(ladder=match.ladder_id, tournament=match.tournament_id,
                    created_at=_when(match.created_at), started_at=_when(match.started_at),
                    finished_at=_when(match.finished_at), has_replay=self.get_has_replay(match))
        data["seats"] = [_seat(seat, staff or seat.bot_version.bot.owner_id == user_id) for seat in match.seats.all()]
        return data


_PLAIN_MATCH_FIELDS = ["id", "game", "round", "num_players", "seed", "options", "status", "rated", "attempts",
                       "move_ms", "bank_ms", "max_faults"]
_DATETIME = serializers.DateTimeField()


def _when(value: Any) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


def _seat(seat: Seat, sees_log: bool) -> dict[str, Any]:
    version = seat.bot_version
    return {"number": seat.number, "bot_version": version.pk, "bot": version.bot_id, "bot_name": version.bot.name,
            "version": version.number, "owner": version.bot.owner.get_username(), "score": seat.score,
            "rank": seat.rank, "faults": seat.faults, "forfeited": seat.forfeited,
            "rating_mu_before": seat.rating_mu_before, "rating_mu_after": seat.rating_mu_after,
            "rating_sigma_before": seat.rating_sigma_before, "rating_sigma_after": seat.rating_sigma_after,
            "log": seat.log if sees_log else None}


def seats_prefetch() -> Prefetch:
    versions = Seat.objects.select_related("bot_version__bot__owner").defer(
        "bot_version__source", "bot_version__validation_log")
    return Prefetch("seats", queryset=versions.order_by("number"))


class MatchFilter(django_filters.FilterSet):
    game = GameFilter()
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    ladder = django_filters.NumberFilter(field_name="ladder_id")
    tournament = django_filters.NumberFilter(field_name="tournament_id")
    bot = django_filters.NumberFilter(method="filter_bot", help_text="matches where this bot has a seat")
    bot_version = django_filters.NumberFilter(method="filter_bot_version")
    created_after = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt")
    finished_after = UtcDateTimeFilter(field_name="finished_at", lookup_expr="gte")
    finished_before = UtcDateTimeFilter(field_name="finished_at", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["game", "status", "ladder", "tournament", "bot", "bot_version"]

    def filter_bot(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), bot_version__bot_id=value)))

    def filter_bot_version(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), bot_version_id=value)))


class MatchRequestSerializer(StrictSerializer):
    ladder = serializers.PrimaryKeyRelatedField(queryset=Ladder.objects.all())
    seats = serializers.PrimaryKeyRelatedField(many=True, queryset=BotVersion.objects.select_related("bot"),
                                               help_text="bot version ids in seat order; one of them yours")
    rated = serializers.BooleanField(default=False, help_text="organisers of the ladder and staff only")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        ladder, versions, user = attrs["ladder"], attrs["seats"], self.context["request"].user
        if ladder.paused:
            raise exceptions.ValidationError({"ladder": [f"ladder {ladder.name!r} is paused"]})
        if len(versions) != ladder.players_per_match:
            raise exceptions.ValidationError({"seats": [f"ladder {ladder.name!r} plays {ladder.players_per_match}"
                                                        f" per match, got {len(versions)} seat(s)"]})
        if len({v.pk for v in versions}) != len(versions):
            raise exceptions.ValidationError({"seats": ["each bot version may take only one seat"]})
        for version in versions:
            if version.status != BotVersion.Status.ACTIVE or version.bot.game != ladder.game:
                raise exceptions.ValidationError({"seats": [f"{version.label} is not an active {ladder.game} bot"]})
        organiser = is_staff(user) or ladder.created_by_id == user.pk
        if not organiser and not any(v.bot.owner_id == user.pk for v in versions):
            raise exceptions.PermissionDenied("one of the seats must be a version of your own bot")
        if attrs["rated"] and not organiser:
            raise exceptions.PermissionDenied("only the ladder's organiser and staff may request rated matches")
        return attrs


class MatchCreateThrottle(ScopedRateThrottle):
    """Only match requests (POST) are throttled; reads are not."""

    def allow_request(self, request: Request, view: Any) -> bool:
        return request.method != "POST" or super().allow_request(request, view)


@extend_schema_view(
    list=extend_schema(tags=["matches"], summary="Matches, newest first, filterable"),
    retrieve=extend_schema(tags=["matches"], summary="A match with its seats",
                           responses={200: MatchSerializer, **errors(404)}),
    create=extend_schema(tags=["matches"], summary="Request a ladder match for your bot (throttled)",
                         request=MatchRequestSerializer,
                         responses={201: MatchSerializer, **errors(400, 401, 403)}),
)
class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                   viewsets.GenericViewSet):
    serializer_class = MatchSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    filterset_class = MatchFilter
    throttle_classes = [MatchCreateThrottle]
    throttle_scope = "matches"
    pagination_class = CursorPagination

    def get_queryset(self) -> QuerySet[Match]:
        return Match.objects.prefetch_related(seats_prefetch()).order_by("-pk")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        form = MatchRequestSerializer(data=request.data, context={"request": request})
        form.is_valid(raise_exception=True)
        match = request_match(form.validated_data["ladder"], form.validated_data["seats"],
                              form.validated_data["rated"])
        match = self.get_queryset().get(pk=match.pk)
        return Response(MatchSerializer(match, context={"request": request}).data, status=status.HTTP_201_CREATED)


def request_match(ladder: Ladder, versions: list[BotVersion], rated: bool) -> Match:
    """Create a queued ladder match with these seats and enqueue it on commit."""
    with transaction.atomic():
        match = Match.objects.create(
            ladder=ladder, game=ladder.game, num_players=len(versions), seed=random.SystemRandom().getrandbits(62),
            options=ladder.options, move_ms=ladder.move_ms, bank_ms=ladder.bank_ms, max_faults=ladder.max_faults,
            rated=rated,
        )
        Seat.objects.bulk_create([Seat(match=match, number=n, bot_version=v) for n, v in enumerate(versions)])
        enqueue_match(match)
    return match


# --- standings -------------------------------------------------------------------------------------------------------


class LadderStandingSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField(source="bot_version_id")
    bot = serializers.IntegerField(source="bot_version.bot_id")
    name = serializers.CharField(source="bot_version.label")
    owner = serializers.CharField(source="bot_version.bot.owner.get_username")
    rating = serializers.FloatField(source="conservative", help_text="mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()

    def to_representation(self, rating: Rating) -> dict[str, Any]:
        """The declared fields, built directly (a hot path; see MatchSerializer.to_representation)."""
        version = rating.bot_version
        return {"bot_version": version.pk, "bot": version.bot_id, "name": version.label,
                "owner": version.bot.owner.get_username(), "rating": rating.conservative, "mu": rating.mu,
                "sigma": rating.sigma, "games": rating.games, "wins": rating.wins}


class LadderStandingsView(generics.ListAPIView):
    permission_classes = [permissions.AllowAny]
    serializer_class = LadderStandingSerializer
    filter_backends: list[Any] = []

    @extend_schema(tags=["ladders"], summary="A ladder's table, by conservative rating",
                   responses={200: LadderStandingSerializer(many=True), **errors(400, 404)})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Rating]:
        ladder = get_object_or_404(Ladder, pk=self.kwargs["pk"])
        return (Rating.objects.filter(ladder=ladder).select_related("bot_version__bot__owner")
                .defer("bot_version__source", "bot_version__validation_log")
                .annotate(rank_key=F("mu") - 3 * F("sigma")).order_by("-rank_key", "pk"))


class TournamentStandingSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField(source="version_id")
    name = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    points = serializers.FloatField(help_text="one per opponent finished ahead of, half per tie")
    mean_score = serializers.FloatField()
    forfeits = serializers.IntegerField()
    rating = serializers.FloatField(source="conservative", help_text="mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    provisional = serializers.BooleanField(help_text="sigma is still above the provisional threshold")
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class TournamentStandingsView(generics.GenericAPIView):
    permission_classes = [permissions.AllowAny]
    serializer_class = TournamentStandingSerializer
    filter_backends: list[Any] = []

    @extend_schema(tags=["tournaments"], summary="A tournament's standings: points, then rating",
                   responses={200: TournamentStandingSerializer(many=True), **errors(400, 404)})
    def get(self, request: Request, pk: int) -> Response:
        tournament = get_object_or_404(Tournament, pk=pk)
        standings = tournament_standings(tournament)
        page = self.paginate_queryset(standings)
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        response.data["seat_win_rates"] = seat_rates(standings)
        return response


def seat_rates(standings: list[Standing]) -> dict[str, dict[str, int]]:
    """Wins and games per seat number over all entrants (what standings.seat_win_rates gives, without re-reading
    the seats), so organisers see any first-player advantage."""
    rates: dict[int, dict[str, int]] = {}
    for standing in standings:
        for seat, games in standing.seat_games.items():
            rate = rates.setdefault(seat, {"wins": 0, "games": 0})
            rate["games"] += games
            rate["wins"] += standing.seat_wins.get(seat, 0)
    return {str(seat): rates[seat] for seat in sorted(rates)}
