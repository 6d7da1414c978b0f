"""Bots and their versions (docs/architecture.md#api-and-web). Uploads stay in api/uploads.py (`POST
/api/bots/upload/`).

- `GET /api/bots/`, `GET /api/bots/{id}/`: public bots for everyone, private ones for their owner and staff.
- `PATCH /api/bots/{id}/`: the owner (or staff) changes the description or the visibility.
- `GET /api/versions/`: versions of visible bots, metadata only; a version's source and validation log are only
  in `GET /api/versions/{id}/`, for the owner and staff.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Max, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, mixins, permissions, serializers, viewsets
from rest_framework.request import Request
from rest_framework.views import APIView

from tournaments.api.common import (
    GameFilter,
    IdFilter,
    ReadOnlyOrAuthenticated,
    StrictModelSerializer,
    errors,
)
from tournaments.api.parsers import JSONBodyParser
from tournaments.api.uploads import VersionSerializer
from tournaments.models import Bot, BotVersion
from tournaments.visibility import is_owner, visible_bots, visible_versions


class BotSerializer(StrictModelSerializer):
    owner = serializers.CharField(source="owner.get_username", read_only=True)
    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = ["id", "owner", "name", "game", "description", "visibility", "flagged_reason", "created_at",
                  "latest_version"]
        read_only_fields = ["id", "owner", "name", "game", "flagged_reason", "created_at", "latest_version"]

    def get_latest_version(self, bot: Bot) -> int | None:
        """The highest version number, from the annotated queryset."""
        return getattr(bot, "latest_number", None)


class IsOwnerOrStaff(permissions.BasePermission):
    message = "only the bot's owner (or staff) may change it"

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        return request.method in permissions.SAFE_METHODS or is_owner(request.user, obj.owner_id)


class BotFilter(django_filters.FilterSet):
    game = GameFilter()
    owner = django_filters.CharFilter(field_name="owner__username")
    visibility = django_filters.ChoiceFilter(choices=Bot.Visibility.choices)

    class Meta:
        model = Bot
        fields = ["game", "owner", "visibility"]


@extend_schema_view(
    list=extend_schema(tags=["bots"], summary="Bots you may see"),
    retrieve=extend_schema(tags=["bots"], summary="A bot", responses={200: BotSerializer, **errors(404)}),
    partial_update=extend_schema(tags=["bots"], summary="Change your bot's description or visibility",
                                 responses={200: BotSerializer, **errors(400, 401, 403, 404)}),
)
class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.UpdateModelMixin, viewsets.GenericViewSet):
    serializer_class = BotSerializer
    permission_classes = [ReadOnlyOrAuthenticated, IsOwnerOrStaff]
    filterset_class = BotFilter
    http_method_names = ["get", "patch", "head", "options"]
    # A change is a JSON object: a form or multipart body cannot tell an empty field from one left out (an empty
    # body or `visibility=` was accepted as "no change"), so those are a 415.
    parser_classes = [JSONBodyParser]

    def get_queryset(self) -> QuerySet[Bot]:
        return (Bot.objects.filter(visible_bots(self.request.user)).select_related("owner")
                .annotate(latest_number=Max("versions__number")).order_by("pk"))


class VersionFilter(django_filters.FilterSet):
    bot = IdFilter(field_name="bot_id")
    status = django_filters.ChoiceFilter(choices=BotVersion.Status.choices)
    game = GameFilter(field_name="bot__game")

    class Meta:
        model = BotVersion
        fields = ["bot", "status", "game"]


@extend_schema(tags=["bots"], summary="Versions of the bots you may see (metadata only)")
class VersionListView(generics.ListAPIView):
    serializer_class = VersionSerializer
    permission_classes = [permissions.AllowAny]
    filterset_class = VersionFilter

    def get_queryset(self) -> QuerySet[BotVersion]:
        # defer: the source and the built artifact are never listed, so never read
        return (visible_versions(self.request.user).select_related("bot__owner")
                .defer("source", "validation_log", "artifact").order_by("pk"))
