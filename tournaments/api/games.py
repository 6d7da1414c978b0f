"""`GET /api/games/` and `GET /api/games/{name}/`: the registered games, their rules version and options schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine import InvalidOptions, list_games, load_game
from tournaments.api.common import errors


class OptionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["int", "bool", "choice", "json"])
    default = serializers.JSONField()
    description = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)


class GameSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    rules_version = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    options = serializers.DictField(child=OptionSerializer(), help_text="option name → its schema and default")


class GameListView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(tags=["games"], summary="The registered games", responses={200: GameSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(GameSerializer(list_games(), many=True).data)


class GameDetailView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(tags=["games"], summary="One game: rules version, player counts, options schema",
                   responses={200: GameSerializer, **errors(404)})
    def get(self, request: Request, name: str) -> Response:
        try:
            game: Any = load_game(name)
        except (InvalidOptions, ImportError) as exc:
            raise NotFound(str(exc)) from None
        return Response(GameSerializer(game.metadata()).data)
