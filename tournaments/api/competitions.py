"""Ladders and tournaments (docs/architecture.md#tournaments-ladders-and-ratings): everyone reads them; organisers
create theirs and run them.

- `/api/ladders/` (GET, POST), `/api/ladders/{id}/` (GET, PATCH), `POST /api/ladders/{id}/pause/` and `/resume/`;
  `is_open` lets authors enter their own versions (tournaments/api/ladder_entries.py).
- `/api/tournaments/` (GET, POST with `entries`), `/api/tournaments/{id}/` (GET, PATCH while a draft),
  `POST /api/tournaments/{id}/start/` and `/cancel/`.

Starting uses tournaments.scheduling.start_tournament; cancelling, tournaments.advancement.cancel_tournament (the
admin's action too), which cancels the queued and running matches under the tournament's lock.
"""

from __future__ import annotations

import copy
from typing import Any

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Model, Prefetch, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from engine import InvalidOptions, load_game
from tournaments import services
from tournaments.advancement import cancel_tournament
from tournaments.api.common import (
    GameFilter,
    ReadOnlyOrOrganiser,
    StrictBooleanFilter,
    StrictModelSerializer,
    django_errors,
    errors,
    game_field,
    limit_choices,
)
from tournaments.models import BotVersion, Ladder, Tournament
from tournaments.scheduling import create_tournament, start_tournament
from tournaments.system_ladders import internal_ladders
from tournaments.visibility import can_see_tournament_seed, hidden_versions, is_staff, new_seed, visible_versions

CLOCK_FIELDS = ["move_ms", "bank_ms", "max_faults"]


def _full_clean(instance: Model) -> None:
    try:
        instance.full_clean()
    except DjangoValidationError as exc:
        raise django_errors(exc) from None


def _complete_options(game: str, options: Any) -> Any:
    try:
        return load_game(game).validate_options(options)
    except InvalidOptions as exc:
        raise exceptions.ValidationError({"options": [str(exc)]}) from None


class LadderSerializer(StrictModelSerializer):
    game = game_field(help_text="a registered game; a ladder's game never changes")
    created_by = serializers.CharField(source="created_by.get_username", read_only=True, allow_null=True)
    options = serializers.DictField(required=False, help_text="game options; see /api/games/{name}/")
    matchmaking = serializers.DictField(required=False)

    class Meta:
        model = Ladder
        fields = ["id", "name", "game", "players_per_match", "options", "matchmaking", "paused", "is_open",
                  *CLOCK_FIELDS, "created_by", "created_at"]
        read_only_fields = ["id", "paused", "created_by", "created_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        ladder = copy.copy(self.instance) if self.instance is not None else Ladder()
        for name, value in attrs.items():
            setattr(ladder, name, value)
        _full_clean(ladder)
        if self.instance is not None and "game" in attrs and attrs["game"] != self.instance.game:
            raise exceptions.ValidationError({"game": ["a ladder's game cannot change"]})
        attrs["options"] = _complete_options(ladder.game, ladder.options)
        return attrs


class TournamentSerializer(StrictModelSerializer):
    null_items_in_answers = ("entries",)  # a private bot's version the reader may not see (LudusAutoSchema)
    game = game_field()
    created_by = serializers.CharField(source="created_by.get_username", read_only=True, allow_null=True)
    options = serializers.DictField(required=False, help_text="game options; see /api/games/{name}/")
    entries = serializers.PrimaryKeyRelatedField(
        many=True, queryset=BotVersion.objects.select_related("bot"),
        help_text="bot version ids (active ones you may see); a private bot you may not see is null",
    )
    seed = serializers.IntegerField(required=False, allow_null=True,
                                    help_text="the matches' seeds derive from it; random when left out; null until "
                                              "the tournament is finished, but for staff")

    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "format", "players_per_table", "games_per_set", "seed", "options",
                  *CLOCK_FIELDS, "state", "entries", "created_by", "created_at"]
        read_only_fields = ["id", "state", "created_by", "created_at"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None:  # only versions this user may see can enter; others answer like missing ones
            limit_choices(self.fields["entries"], visible_versions(request.user).select_related("bot"))

    def validate_seed(self, value: int | None) -> int:
        return new_seed() if value is None else value

    def to_representation(self, instance: Tournament) -> dict[str, Any]:
        data = super().to_representation(instance)
        user = self.context["request"].user if "request" in self.context else None
        if not can_see_tournament_seed(user, instance):
            data["seed"] = None
        hidden = hidden_versions(user, [v for v in data["entries"] if v is not None])
        data["entries"] = [None if v in hidden else v for v in data["entries"]]
        return data

    def create(self, validated_data: dict[str, Any]) -> Tournament:
        validated_data.setdefault("seed", new_seed())
        versions = validated_data.pop("entries")
        try:
            return create_tournament(versions, **validated_data)
        except DjangoValidationError as exc:
            raise django_errors(exc) from None

    def update(self, instance: Tournament, validated_data: dict[str, Any]) -> Tournament:
        if instance.state != Tournament.State.DRAFT:
            raise exceptions.ValidationError({"state": [f"a {instance.state} tournament cannot change"]})
        versions = validated_data.pop("entries", None)
        for name, value in validated_data.items():
            setattr(instance, name, value)
        _full_clean(instance)
        with transaction.atomic():
            instance.options = _complete_options(instance.game, instance.options)
            instance.save()
            if versions is not None:
                instance.entries.set(versions)
        return instance


class CompetitionFilter(django_filters.FilterSet):
    game = GameFilter()
    created_by = django_filters.CharFilter(field_name="created_by__username")


class LadderFilter(CompetitionFilter):
    paused = StrictBooleanFilter()

    class Meta:
        model = Ladder
        fields = ["game", "created_by", "paused"]


class TournamentFilter(CompetitionFilter):
    state = django_filters.ChoiceFilter(choices=Tournament.State.choices)
    format = django_filters.ChoiceFilter(choices=Tournament.Format.choices)

    class Meta:
        model = Tournament
        fields = ["game", "created_by", "state", "format"]


class CompetitionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                         mixins.UpdateModelMixin, viewsets.GenericViewSet):
    permission_classes = [ReadOnlyOrOrganiser]
    http_method_names = ["get", "post", "patch", "head", "options"]

    def perform_create(self, serializer: Any) -> None:
        serializer.save(created_by=self.request.user)


@extend_schema_view(
    list=extend_schema(tags=["ladders"], summary="Ladders"),
    retrieve=extend_schema(tags=["ladders"], summary="A ladder", responses={200: LadderSerializer, **errors(404)}),
    create=extend_schema(tags=["ladders"], summary="Create a ladder (organisers)",
                         responses={201: LadderSerializer, **errors(400, 401, 403)}),
    partial_update=extend_schema(tags=["ladders"], summary="Change your ladder",
                                 responses={200: LadderSerializer, **errors(400, 401, 403, 404)}),
)
class LadderViewSet(CompetitionViewSet):
    serializer_class = LadderSerializer
    filterset_class = LadderFilter

    def get_queryset(self) -> QuerySet[Ladder]:
        ladders = Ladder.objects.select_related("created_by").order_by("pk")
        if self.action == "list" and not is_staff(self.request.user):  # the public list: no unrated work
            return ladders.exclude(internal_ladders())  # (docs/tournaments.md, "Unrated games")
        return ladders

    @extend_schema(tags=["ladders"], summary="Pause your ladder: no new matches are made", request=None,
                   responses={200: LadderSerializer, **errors(401, 403, 404)})
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str) -> Response:
        return self._set_paused(True)

    @extend_schema(tags=["ladders"], summary="Resume (start) your ladder", request=None,
                   responses={200: LadderSerializer, **errors(401, 403, 404)})
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str) -> Response:
        return self._set_paused(False)

    def _set_paused(self, paused: bool) -> Response:
        ladder = self.get_object()
        Ladder.objects.filter(pk=ladder.pk).update(paused=paused)
        ladder.paused = paused
        return Response(self.get_serializer(ladder).data)


@extend_schema_view(
    list=extend_schema(tags=["tournaments"], summary="Tournaments"),
    retrieve=extend_schema(tags=["tournaments"], summary="A tournament",
                           responses={200: TournamentSerializer, **errors(404)}),
    create=extend_schema(tags=["tournaments"], summary="Create a draft tournament with its entries (organisers)",
                         responses={201: TournamentSerializer, **errors(400, 401, 403)}),
    partial_update=extend_schema(tags=["tournaments"], summary="Change your draft tournament",
                                 responses={200: TournamentSerializer, **errors(400, 401, 403, 404)}),
)
class TournamentViewSet(CompetitionViewSet):
    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter

    def get_queryset(self) -> QuerySet[Tournament]:
        entries = Prefetch("entries", queryset=BotVersion.objects.only("pk"))
        return Tournament.objects.select_related("created_by").prefetch_related(entries).order_by("pk")

    @extend_schema(tags=["tournaments"], summary="Start your draft tournament: schedule and enqueue its matches",
                   request=None, responses={200: TournamentSerializer, **errors(400, 401, 403, 404)})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        tournament = self.get_object()
        try:
            start_tournament(tournament)
        except DjangoValidationError as exc:
            raise django_errors(exc) from None
        return Response(self.get_serializer(tournament).data)

    @extend_schema(tags=["tournaments"], summary="Requeue your tournament's failed matches (it waits on them)",
                   request=None, responses={200: TournamentSerializer, **errors(401, 403, 404)})
    @action(detail=True, methods=["post"], url_path="requeue-failed")
    def requeue_failed(self, request: Request, pk: str) -> Response:
        tournament = self.get_object()
        requeued = services.requeue_failed(tournament)
        tournament.refresh_from_db()
        response = Response(self.get_serializer(tournament).data)
        response["X-Requeued-Matches"] = str(requeued)
        return response

    @extend_schema(tags=["tournaments"], summary="Cancel your tournament and its pending matches",
                   request=None, responses={200: TournamentSerializer, **errors(400, 401, 403, 404)})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        tournament = self.get_object()
        try:
            cancel_tournament(tournament)
        except DjangoValidationError as exc:
            raise django_errors(exc) from None
        return Response(self.get_serializer(tournament).data, status=status.HTTP_200_OK)
