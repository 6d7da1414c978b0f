"""Self-serve ladder entries: `POST /api/ladders/{id}/entries/` enters your active version on an open ladder,
`DELETE /api/ladders/{id}/entries/{version}/` withdraws it (tournaments/ladder_entries.py holds the rule)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import StrictSerializer, errors
from tournaments.ladder_entries import EntryRefused, enter_ladder, withdraw_from_ladder
from tournaments.models import Ladder, LadderEntry
from tournaments.visibility import visible_versions


class EntryRequestSerializer(StrictSerializer):
    bot_version = serializers.IntegerField(min_value=1, help_text="the id of your active version of the ladder's game")


class LadderEntrySerializer(serializers.Serializer):
    ladder = serializers.IntegerField(source="ladder_id")
    bot_version = serializers.IntegerField(source="bot_version_id")
    joined_at = serializers.DateTimeField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)


def _refused(exc: EntryRefused) -> exceptions.ValidationError:
    return exceptions.ValidationError({"detail": [str(exc)]})


class LadderEntriesView(APIView):
    @extend_schema(tags=["ladders"], summary="Enter your active version on an open ladder",
                   description="400 unless the ladder is open to entries (`is_open`) and the version is yours, "
                               "active and of the ladder's game.",
                   request=EntryRequestSerializer,
                   responses={201: LadderEntrySerializer, **errors(400, 401, 403, 404)})
    def post(self, request: Request, pk: int) -> Response:
        ladder = get_object_or_404(Ladder, pk=pk)
        data = EntryRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            entry = enter_ladder(request.user, ladder, data.validated_data["bot_version"])
        except EntryRefused as exc:
            raise _refused(exc) from None
        return Response(LadderEntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class LadderEntryView(APIView):
    @extend_schema(tags=["ladders"], summary="Withdraw your version from an open ladder (its standing stays)",
                   description="400 unless the ladder is open to entries (`is_open`) and the version is yours and "
                               "entered; 404 for a version that does not exist or that you may not see.",
                   request=None, responses={200: LadderEntrySerializer, **errors(400, 401, 403, 404)})
    def delete(self, request: Request, pk: int, version: int) -> Response:
        ladder = get_object_or_404(Ladder, pk=pk)
        if not visible_versions(request.user).filter(pk=version).exists():  # a hidden one answers like a missing one
            raise exceptions.NotFound(f"bot version {version} does not exist")
        try:
            entry: LadderEntry = withdraw_from_ladder(request.user, ladder, version)
        except EntryRefused as exc:
            raise _refused(exc) from None
        return Response(LadderEntrySerializer(entry).data)
