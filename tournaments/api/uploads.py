"""Uploading a bot version, and reading one back (docs/architecture.md#api-and-web).

- `POST /api/bots/upload/` (multipart: name, game, file, description): the author's new version. Token or session
  authentication, throttled by the `uploads` scope (LUDUS_UPLOAD_RATE), capped at LUDUS_UPLOAD_MAX_BYTES.
- `GET /api/versions/{id}/`: a version's metadata for everyone who may see the bot; its validation log and its
  source only for the bot's owner and for staff.
"""

from __future__ import annotations

import base64
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, permissions, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from tournaments import upload_rule
from tournaments.api.common import BAD_INPUT, ERROR, game_field
from tournaments.bot_lifecycle import BadUpload, upload_bot_version
from tournaments.models import BotVersion
from tournaments.visibility import is_owner, visible_versions


class UploadSerializer(serializers.Serializer):
    """The multipart form of an upload."""

    name = serializers.SlugField(max_length=64, help_text="the bot's name, a slug; new names create a bot",
                                 error_messages={"invalid": "a name must be letters, digits, '-' or '_' (a slug)"})
    game = game_field(help_text="a registered game; a bot's game never changes")
    file = serializers.FileField(help_text="a .py file that compiles, or a .zip with main.py at its root or in one "
                                           "top folder, within the upload limits (a 400 names what is wrong)")
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")

    def validate_file(self, value: Any) -> Any:
        if message := upload_rule.file_too_large(value.name, value.size):
            raise serializers.ValidationError(message)
        return value


class VersionSerializer(serializers.ModelSerializer):
    """What anyone who may see the bot sees of a version."""

    bot = serializers.CharField(source="bot.name", read_only=True)
    owner = serializers.CharField(source="bot.owner.get_username", read_only=True)
    game = serializers.CharField(source="bot.game", read_only=True)
    flagged_reason = serializers.CharField(source="bot.flagged_reason", read_only=True)

    class Meta:
        model = BotVersion
        fields = ["id", "bot", "owner", "game", "number", "filename", "sha256", "size", "status", "flagged_reason",
                  "created_at", "language", "toolchain", "artifact_sha256"]
        read_only_fields = fields


class OwnerVersionSerializer(VersionSerializer):
    """The owner's (and staff's) view: also the validation log and the source."""

    source_base64 = serializers.SerializerMethodField(help_text="the uploaded file, base64-encoded")

    class Meta(VersionSerializer.Meta):
        fields = [*VersionSerializer.Meta.fields, "validation_log", "source_base64"]
        read_only_fields = fields

    def get_source_base64(self, version: BotVersion) -> str:
        return base64.b64encode(bytes(version.source)).decode("ascii")




# Two shapes, by who reads: the owner's has the log and the source. anyOf, not oneOf: the owner's shape is also a
# Version (a Version may carry more fields), so exactly-one-of would refuse it.
VERSION_FOR_READER = {"anyOf": [{"$ref": "#/components/schemas/OwnerVersion"},
                                {"$ref": "#/components/schemas/Version"}]}


class UploadView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = upload_rule.SCOPE

    @extend_schema(
        operation_id="bots_upload",
        tags=["bots"],
        summary="Upload a new version of one of your bots",
        description="Creates the bot on first upload. The new version is `pending` until a smoke match in the "
                    "sandbox makes it `active` or `rejected`; an upload that does not compile is `rejected` at once, "
                    "with the compile error in `validation_log`. Earlier versions stay as they are.",
        request={"multipart/form-data": UploadSerializer},
        responses={
            201: OwnerVersionSerializer,
            400: OpenApiResponse(BAD_INPUT, description="a malformed upload, an unknown game or a bad name"),
            401: OpenApiResponse(ERROR, description="no credentials"),
            413: OpenApiResponse(ERROR, description="the request is larger than the upload limit"),
            429: OpenApiResponse(ERROR, description="too many uploads; retry later"),
        },
    )
    def post(self, request: Request) -> Response:
        # The upload rule (tournaments/upload_rule.py): the throttle ran before this; the size before the body is read.
        if message := upload_rule.oversize_message(upload_rule.announced_length(request)):
            return Response({"detail": message}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        form = UploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        try:
            version = upload_bot_version(request.user, form.validated_data["name"], form.validated_data["game"],
                                         upload.name, upload.read(), form.validated_data["description"])
        except BadUpload as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        location = reverse("api:version-detail", kwargs={"pk": version.pk}, request=request)
        body = OwnerVersionSerializer(version, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})


class VersionDetailView(generics.RetrieveAPIView):
    permission_classes = [permissions.AllowAny]  # anonymous users read public metadata
    serializer_class = VersionSerializer

    def get_queryset(self) -> QuerySet[BotVersion]:
        return visible_versions(self.request.user).select_related("bot__owner")

    @extend_schema(
        operation_id="versions_retrieve",
        tags=["bots"],
        summary="A bot version",
        description="Metadata for everyone who may see the bot. `validation_log` and `source_base64` only for the "
                    "bot's owner and for staff. A private bot's versions are not found for others.",
        responses={200: OpenApiResponse(VERSION_FOR_READER, description="OwnerVersion for the bot's owner and staff, "
                                                                         "Version for everyone else"),
                   404: OpenApiResponse(ERROR, description="no such visible version")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        version = self.get_object()
        serializer = OwnerVersionSerializer if is_owner(request.user, version.bot.owner_id) else VersionSerializer
        return Response(serializer(version, context={"request": request}).data)
