"""Version tests over the API (docs/version-tests.md).

- `POST /api/tests/`: start a test of two versions you may seat (throttled, scope `matches`); 201 with the test.
  One 400 per bad input, naming the field.
- `GET /api/tests/`: tests you may see, newest first, filterable by bot, author, game and status.
- `GET /api/tests/{id}/`: one test with its games (each a match, with its replay once over), live while it runs.
- `POST /api/tests/{id}/cancel/`: its owner (or staff) stops it.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Q, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import MAX_ID, IdFilter, ReadOnlyOrAuthenticated, StrictSerializer, errors
from tournaments.api.matches import MatchCreateThrottle
from tournaments.models import VersionTest
from tournaments.version_tests import MAX_GAMES, TestRefused, TestRequest, cancel_test, start_test
from tournaments.visibility import can_see_test_seed, is_owner, seat_label, visible_tests, with_open_games


class TestRequestSerializer(StrictSerializer):
    new = serializers.IntegerField(min_value=1, max_value=MAX_ID,
                                   help_text="the version under test: a bot version id you may seat")
    base = serializers.IntegerField(min_value=1, max_value=MAX_ID,
                                    help_text="the version it must beat (it may be `new` itself)")
    game = serializers.CharField(required=False, allow_null=True, default=None,
                                 help_text="needed only when both versions are built-in bots")
    players = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2, max_value=64,
                                       help_text="players per game (default: 2 plus the field)")
    field = serializers.ListField(child=serializers.CharField(max_length=64), required=False, default=list,
                                  max_length=63,
                                  help_text='the other seats, in order: built-in bots ("greedy") or version ids '
                                            "(default: greedy bots)")
    d0 = serializers.FloatField(required=False, default=0.0, min_value=-1, max_value=1,
                                help_text="H0: new's score-share lead is d0 (above -1)")
    d1 = serializers.FloatField(required=False, default=0.05, min_value=-1, max_value=1,
                                help_text="H1: it is d1 (above d0, below 1)")
    alpha = serializers.FloatField(required=False, default=0.05, min_value=0, max_value=0.5,
                                   help_text="the risk of passing a version at d0 (between 0 and 0.5)")
    beta = serializers.FloatField(required=False, default=0.05, min_value=0, max_value=0.5,
                                  help_text="the risk of failing a version at d1 (between 0 and 0.5)")
    max_games = serializers.IntegerField(required=False, default=2000, min_value=2, max_value=MAX_GAMES,
                                         help_text="the game cap")
    batch_deals = serializers.IntegerField(required=False, default=4, min_value=1, max_value=100,
                                           help_text="deals (2 games each) per batch")
    options = serializers.DictField(required=False, default=dict, help_text="the game's options")


class EstimateSerializer(serializers.Serializer):
    mean = serializers.FloatField()
    low = serializers.FloatField(help_text="the 95 % interval's low end")
    high = serializers.FloatField()
    n = serializers.IntegerField(help_text="deals")


class VersionTallySerializer(serializers.Serializer):
    games = serializers.IntegerField()
    points = serializers.FloatField(help_text="rank points: 1 for first, 0 for last, ties halved")
    wins = serializers.IntegerField()
    faults = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    timeouts = serializers.IntegerField()
    moves = serializers.IntegerField()
    cpu_ms = serializers.IntegerField()


class TestGameSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match_id")
    deal = serializers.IntegerField()
    swapped = serializers.BooleanField()
    new_seat = serializers.IntegerField()
    base_seat = serializers.IntegerField()
    status = serializers.CharField(source="match.status")


class VersionTestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=VersionTest.Status.choices)
    owner = serializers.CharField(source="owner.username")
    new = serializers.IntegerField(source="new_id")
    new_label = serializers.SerializerMethodField(help_text="\"private bot\" for a bot made private since")
    base = serializers.IntegerField(source="base_id")
    base_label = serializers.SerializerMethodField(help_text="\"private bot\" for a bot made private since")
    game = serializers.CharField()
    players = serializers.IntegerField()
    field = serializers.ListField(child=serializers.IntegerField(), help_text="the other seats' version ids")
    d0 = serializers.FloatField()
    d1 = serializers.FloatField()
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    max_games = serializers.IntegerField()
    batch_deals = serializers.IntegerField()
    visibility = serializers.CharField()
    llr = serializers.FloatField(help_text="the log-likelihood ratio of H1 against H0 so far")
    bounds = serializers.SerializerMethodField(help_text="[lower, upper]: H0 accepted at or below, H1 at or above")
    games_played = serializers.IntegerField()
    cpu_ms = serializers.IntegerField()
    score = serializers.SerializerMethodField(help_text="new's score-share lead over base per deal, 95 % interval")
    win_rate = serializers.SerializerMethodField(help_text="new's win-rate lead over base per deal, 95 % interval")
    versions = serializers.SerializerMethodField()
    llr_history = serializers.SerializerMethodField(help_text="[games played, LLR] after each batch")
    seed = serializers.SerializerMethodField(help_text="the secret every deal's seed derives from: once ended")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    def get_new_label(self, test: VersionTest) -> str:
        return seat_label(self.context["request"].user, test.new)

    def get_base_label(self, test: VersionTest) -> str:
        return seat_label(self.context["request"].user, test.base)

    def get_bounds(self, test: VersionTest) -> list[float]:
        return list(test.results.get("bounds", []))

    @extend_schema_field(EstimateSerializer(allow_null=True))
    def get_score(self, test: VersionTest) -> dict[str, Any] | None:
        score: dict[str, Any] | None = test.results.get("score")
        return score

    @extend_schema_field(EstimateSerializer(allow_null=True))
    def get_win_rate(self, test: VersionTest) -> dict[str, Any] | None:
        win_rate: dict[str, Any] | None = test.results.get("win_rate")
        return win_rate

    @extend_schema_field(serializers.DictField(child=VersionTallySerializer()))
    def get_versions(self, test: VersionTest) -> dict[str, Any]:
        return dict(test.results.get("versions", {}))

    @extend_schema_field(serializers.ListField(child=serializers.ListField(child=serializers.FloatField())))
    def get_llr_history(self, test: VersionTest) -> list[list[float]]:
        return list(test.results.get("llr_history", []))

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, test: VersionTest) -> int | None:
        return test.seed if can_see_test_seed(test) else None


class VersionTestDetailSerializer(VersionTestSerializer):
    games = serializers.SerializerMethodField(help_text="each game: its match (and replay), deal and seats")

    @extend_schema_field(TestGameSerializer(many=True))
    def get_games(self, test: VersionTest) -> Any:
        return TestGameSerializer(test.games.select_related("match").order_by("deal", "swapped"), many=True).data


class TestFilter(django_filters.FilterSet):
    bot = IdFilter(method="filter_bot", help_text="tests where a version of this bot is new or base")
    author = django_filters.CharFilter(field_name="owner__username", help_text="the username who started it")
    game = django_filters.CharFilter()
    status = django_filters.ChoiceFilter(choices=VersionTest.Status.choices)

    class Meta:
        model = VersionTest
        fields = ["bot", "author", "game", "status"]

    def filter_bot(self, queryset: QuerySet[VersionTest], name: str, value: int) -> QuerySet[VersionTest]:
        return queryset.filter(Q(new__bot_id=value) | Q(base__bot_id=value))


@extend_schema_view(
    list=extend_schema(tags=["tests"], summary="Version tests you may see, newest first, filterable"),
    retrieve=extend_schema(tags=["tests"], summary="A version test with its games (live while it runs)",
                           responses={200: VersionTestDetailSerializer, **errors(404)}),
)
class VersionTestViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_classes = [MatchCreateThrottle]
    throttle_scope = "matches"
    filterset_class = TestFilter
    serializer_class = VersionTestSerializer

    def get_queryset(self) -> QuerySet[VersionTest]:
        return with_open_games(VersionTest.objects.filter(visible_tests(self.request.user))
                               .select_related("owner", "new__bot", "base__bot").order_by("-pk"))

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:
        return VersionTestDetailSerializer if self.action == "retrieve" else VersionTestSerializer

    @extend_schema(tags=["tests"], summary="Start a version test (throttled)", request=TestRequestSerializer,
                   description="400 unless both versions (and the field's) exist, are visible to you and active, "
                               "play one game at a table of `players`, and -1 < d0 < d1 < 1, 0 < alpha, beta < 0.5.",
                   responses={201: VersionTestSerializer, **errors(400, 401, 429)})
    def create(self, request: Request) -> Response:
        form = TestRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            test = start_test(request.user, TestRequest(**form.validated_data))
        except TestRefused as exc:
            raise exceptions.ValidationError({exc.field: [str(exc)]}) from exc
        return Response(VersionTestSerializer(test, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(tags=["tests"], summary="Stop a running test (its owner or staff)", request=None,
                   responses={200: VersionTestSerializer, **errors(400, 401, 403, 404)})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: int) -> Response:
        test = self.get_object()
        if not is_owner(request.user, test.owner_id):
            raise exceptions.PermissionDenied("only the test's owner (or staff) may stop it")
        if not cancel_test(test):
            raise exceptions.ValidationError({"detail": [f"test {test.pk} is {test.status}: only a running test "
                                                         "stops"]})
        return Response(VersionTestSerializer(self.get_queryset().get(pk=test.pk), context={"request": request}).data)

