"""Matches and their seats (docs/architecture.md#tournaments-ladders-and-ratings); standings are in
tournaments/api/standings.py.

- `GET /api/matches/`: filterable by game, bot, bot version, ladder, tournament, status and dates; newest first.
- `GET /api/matches/{id}/`: one match with its seats. A seat's captured stderr (`log`) only for its bot's owner
  and staff.
- `POST /api/matches/`: request a ladder match between active versions, one of them yours (throttled, scope
  `matches`). Requests by authors are unrated; organisers of the ladder and staff may ask for rated ones.
"""

from __future__ import annotations

from typing import Any, cast

import django_filters
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Case, Exists, F, OuterRef, QuerySet, TextField, Value, When
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, generics, mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from tournaments.api.common import (
    CursorPagination,
    GameFilter,
    IdFilter,
    ReadOnlyOrAuthenticated,
    StrictSerializer,
    UtcDateTimeFilter,
    errors,
    limit_choices,
)
from tournaments.dispatch import enqueue_match
from tournaments.models import BotVersion, Ladder, Match, Seat
from tournaments.new_matches import create_match
from tournaments.visibility import (
    can_see_secrets,
    is_shown,
    is_staff,
    new_seed,
    over_ids,
    shown_seat,
    visible_bots,
    visible_versions,
)

User = get_user_model()


HIDDEN_HELP = "null for a private bot the reader may not see (tournaments.visibility)"


# The match list is the API's hot path (benchmarks/api.py): its serializers write rows of plain column values
# (`shown_matches`), never model instances.
class SeatSerializer(serializers.ModelSerializer):
    """A seat; a private bot's seat shows others only `bot_name: "private bot"` and nulls (tournaments.visibility)."""

    bot_version = serializers.IntegerField(read_only=True, allow_null=True, help_text=HIDDEN_HELP)
    bot = serializers.IntegerField(read_only=True, allow_null=True, help_text=HIDDEN_HELP)
    bot_name = serializers.CharField(read_only=True)
    version = serializers.IntegerField(read_only=True, allow_null=True, help_text=HIDDEN_HELP)
    owner = serializers.CharField(read_only=True, allow_null=True, help_text=HIDDEN_HELP)
    log = serializers.CharField(read_only=True, allow_null=True,
                                help_text="the seat's stderr: only for the bot's owner and staff, null for others")

    class Meta:
        model = Seat
        fields = ["number", "bot_version", "score", "rank", "faults", "forfeited", "rating_mu_before",
                  "rating_mu_after", "rating_sigma_before", "rating_sigma_after", "bot", "bot_name", "version",
                  "owner", "log"]
        read_only_fields = fields


class MatchSerializer(serializers.ModelSerializer):
    """A match with its seats."""

    seats = SeatSerializer(many=True, read_only=True)
    # Rows carry the related ids (`values()`), not instances. DRF takes declared fields off the class, so `parent`
    # does not hide Field.parent, whatever mypy reads.
    ladder = serializers.IntegerField(read_only=True, allow_null=True)
    tournament = serializers.IntegerField(read_only=True, allow_null=True)
    parent = serializers.IntegerField(  # type: ignore[assignment]
        read_only=True, allow_null=True, help_text="for a branch, the match it branches from (docs/branches.md)")
    seed = serializers.IntegerField(read_only=True, allow_null=True,
                                    help_text="null until the match is over (and the rest of its set), but for staff")
    has_replay = serializers.SerializerMethodField(help_text="the match finished and its replay is kept")

    class Meta:
        model = Match
        fields = ["id", "game", "ladder", "tournament", "round", "num_players", "seed", "options", "status",
                  "rated", "attempts", "move_ms", "bank_ms", "max_faults", "created_at", "started_at",
                  "finished_at", "parent", "branch_step", "seats", "has_replay"]
        read_only_fields = fields
        extra_kwargs = {"branch_step": {"help_text": "for a branch, the parent's step it branches at"}}

    def get_has_replay(self, row: dict[str, Any]) -> bool:
        return bool(row["status"] == Match.Status.FINISHED)


_MATCH_COLUMNS = [name for name in MatchSerializer.Meta.fields if name not in ("seats", "has_replay")]
# The seat fields that are not Seat's own columns, by their API names.
_SEAT_JOINED = {"bot": F("bot_version__bot_id"), "bot_name": F("bot_version__bot__name"),
                "version": F("bot_version__number"), "owner": F(f"bot_version__bot__owner__{User.USERNAME_FIELD}")}
_SEAT_OWN = [name for name in SeatSerializer.Meta.fields if name not in _SEAT_JOINED and name != "log"]
_SEAT_VISIBILITY = {"bot_visibility": F("bot_version__bot__visibility"), "owner_id": F("bot_version__bot__owner_id")}


def match_values(matches: QuerySet[Match]) -> QuerySet[Match, dict[str, Any]]:
    """The matches' own columns, as dicts keyed by API name (`ladder`, not `ladder_id`), for `shown_matches`."""
    rows: QuerySet[Match, dict[str, Any]] = matches.values(*_MATCH_COLUMNS)
    return rows


def shown_matches(rows: list[dict[str, Any]], user: Any) -> list[dict[str, Any]]:
    """These matches (rows of `match_values`) with their seats, in one more query whatever their number, as
    tournaments.visibility shows them to this user: MatchSerializer's rows. A seat's captured stderr (`log`) is read
    only where this user may see it: staff, or the bot's owner."""
    seats: dict[int, list[dict[str, Any]]] = {row["id"]: [] for row in rows}
    columns = dict(_SEAT_JOINED, **_SEAT_VISIBILITY, seat_log=_visible_log(user))
    for seat in (Seat.objects.filter(match_id__in=seats).order_by("match_id", "number")
                 .values("match", *_SEAT_OWN, **columns)):
        seat["log"] = seat.pop("seat_log")  # an annotation may not take the name of the model's `log` column
        shown = is_shown(user, seat.pop("bot_visibility"), seat.pop("owner_id"))
        seats[seat.pop("match")].append(shown_seat(seat, shown))
    over = set() if is_staff(user) else over_ids(rows)
    for row in rows:
        row["seats"] = seats[row["id"]]
        if not can_see_secrets(user, row["id"] in over):
            row["seed"] = None
    return rows


def match_data(rows: list[dict[str, Any]], user: Any) -> list[dict[str, Any]]:
    """The API's answer for these matches (rows of `match_values`), as this user may see them."""
    return cast(list[dict[str, Any]], MatchSerializer(shown_matches(rows, user), many=True).data)


def _visible_log(user: Any) -> Any:
    if is_staff(user):
        return F("log")
    if not user.is_authenticated:
        return Value(None, output_field=TextField())
    return Case(When(bot_version__bot__owner_id=user.pk, then=F("log")), default=None, output_field=TextField())


class MatchFilter(django_filters.FilterSet):
    game = GameFilter()
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    ladder = IdFilter(field_name="ladder_id")
    tournament = IdFilter(field_name="tournament_id")
    bot = IdFilter(method="filter_bot", help_text="matches where this bot has a seat")
    bot_version = IdFilter(method="filter_bot_version")
    created_after = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt")
    finished_after = UtcDateTimeFilter(field_name="finished_at", lookup_expr="gte")
    finished_before = UtcDateTimeFilter(field_name="finished_at", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["game", "status", "ladder", "tournament", "bot", "bot_version"]

    def filter_bot(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(Exists(self._seats().filter(bot_version__bot_id=value)))

    def filter_bot_version(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(Exists(self._seats().filter(bot_version_id=value)))

    def _seats(self) -> QuerySet[Seat]:
        """Seats of the match being filtered, of bots this user may see: a hidden bot finds what a missing one does."""
        user = self.request.user if self.request else None
        return Seat.objects.filter(visible_bots(user, "bot_version__bot__"), match=OuterRef("pk"))


class MatchRequestSerializer(StrictSerializer):
    ladder = serializers.PrimaryKeyRelatedField(queryset=Ladder.objects.all())
    seats = serializers.PrimaryKeyRelatedField(many=True, queryset=BotVersion.objects.select_related("bot"),
                                               help_text="bot version ids in seat order, as many as the ladder "
                                                         "seats: active versions of its game (or built-in bots), "
                                                         "each once, one of them yours")
    rated = serializers.BooleanField(default=False, help_text="organisers of the ladder and staff only")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only versions this user may see can be seated: any other answers like a missing one (no name, no status).
        request = self.context.get("request")
        if request is not None:  # None when drf-spectacular builds the schema
            seatable = visible_versions(request.user).select_related("bot")
            limit_choices(self.fields["seats"], seatable)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        ladder, versions, user = attrs["ladder"], attrs["seats"], self.context["request"].user
        if ladder.paused:
            raise exceptions.ValidationError({"ladder": [f"ladder {ladder.name!r} is paused"]})
        if len(versions) != ladder.players_per_match:
            raise exceptions.ValidationError({"seats": [f"ladder {ladder.name!r} plays {ladder.players_per_match}"
                                                        f" per match, got {len(versions)} seat(s)"]})
        if len({v.pk for v in versions}) != len(versions):
            raise exceptions.ValidationError({"seats": ["each bot version may take only one seat"]})
        for version in versions:  # a built-in bot (greedy, random) plays every game
            plays = version.bot.game == ladder.game or version.is_builtin()
            if version.status != BotVersion.Status.ACTIVE or not plays:
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
        return Match.objects.order_by("-pk")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(match_values(self.filter_queryset(self.get_queryset())))
        assert page is not None, "the match list is always paginated"
        return self.get_paginated_response(match_data(page, request.user))

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        row = generics.get_object_or_404(match_values(self.get_queryset()), pk=kwargs["pk"])  # type: ignore[type-var]
        return Response(match_data([cast(dict[str, Any], row)], request.user)[0])

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        form = MatchRequestSerializer(data=request.data, context={"request": request})
        form.is_valid(raise_exception=True)
        match = request_match(form.validated_data["ladder"], form.validated_data["seats"],
                              form.validated_data["rated"])
        rows = match_data(list(match_values(Match.objects.filter(pk=match.pk))), request.user)
        return Response(rows[0], status=status.HTTP_201_CREATED)


def request_match(ladder: Ladder, versions: list[BotVersion], rated: bool) -> Match:
    """Create a queued ladder match with these seats and enqueue it on commit."""
    with transaction.atomic():
        match = create_match(ladder, versions, new_seed(), rated=rated)
        enqueue_match(match)
    return match
