"""Standings (docs/architecture.md#tournaments-ladders-and-ratings): `GET /api/ladders/{id}/standings/` and
`GET /api/tournaments/{id}/standings/`, the tables, paginated, with the competition's wins by seat.

A tournament's table reads its standings rows (tournaments/standings.py), as its page does; a ladder's, its
ratings (rated games), as its page does: one row an entrant either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import F, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import Pagination, errors
from tournaments.api.matches import HIDDEN_HELP
from tournaments.models import BotVersion, Ladder, Rating, Tournament
from tournaments.rating_rule import conservative_in_sql, is_provisional
from tournaments.standings import Standing, ladder_seat_record, tournament_standings
from tournaments.visibility import PRIVATE_LABEL, hidden_versions

User = get_user_model()


class SeatCountSerializer(serializers.Serializer):
    games = serializers.IntegerField()
    wins = serializers.IntegerField()


SEAT_COUNTS_HELP = "games and wins by seat number (\"0\" is the first player), to show any first-player advantage"


def seat_counts(record: list[list[int]], seats: int) -> dict[str, dict[str, int]]:
    """A seat record ([games, wins] by seat number) as the API spells it, for every seat of a table of `seats`."""
    padded = [*record, *([0, 0] for _ in range(seats - len(record)))]
    return {str(number): {"games": games, "wins": wins} for number, (games, wins) in enumerate(padded)}


def seat_totals(records: Iterable[list[list[int]]], seats: int) -> dict[str, dict[str, int]]:
    """The competition's games and wins by seat number: the sum of its entrants' seat records."""
    totals: list[list[int]] = []
    for record in records:
        totals.extend([0, 0] for _ in range(len(record) - len(totals)))
        for total, (games, wins) in zip(totals, record, strict=False):
            total[0], total[1] = total[0] + games, total[1] + wins
    return seat_counts(totals, seats)


class StandingsPagination(Pagination):
    """A standings page: its rows, plus `seat_win_rates` over the whole competition."""

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paged = super().get_paginated_response_schema(schema)
        paged["properties"]["seat_win_rates"] = {
            "type": "object", "description": SEAT_COUNTS_HELP,
            "additionalProperties": {"type": "object", "required": ["games", "wins"],
                                     "properties": {"games": {"type": "integer"}, "wins": {"type": "integer"}}}}
        paged["required"] = [*paged.get("required", []), "seat_win_rates"]
        return paged


PROVISIONAL_HELP = "no rated game yet, or sigma still above the provisional threshold (LUDUS_PROVISIONAL_SIGMA)"


# Rows of `LadderStandingsView.get_queryset` joined with their versions' names: a hot path, like the match list.
class LadderStandingSerializer(serializers.Serializer):

    bot_version = serializers.IntegerField(allow_null=True, help_text=HIDDEN_HELP)
    bot = serializers.IntegerField(source="bot_id", allow_null=True)
    name = serializers.SerializerMethodField(help_text=f'"{PRIVATE_LABEL}" for a hidden bot')
    owner = serializers.CharField(allow_null=True)
    rating = serializers.FloatField(source="rank_key", help_text="mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    provisional = serializers.SerializerMethodField(help_text=PROVISIONAL_HELP)
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    seats = serializers.SerializerMethodField(help_text="rated " + SEAT_COUNTS_HELP)

    def get_name(self, row: dict[str, Any]) -> str:
        number = row["version"]
        return PRIVATE_LABEL if number is None else BotVersion.label_of(row["bot_name"], number)

    def get_provisional(self, row: dict[str, Any]) -> bool:
        return is_provisional(row["sigma"], row["games"])

    @extend_schema_field(serializers.DictField(child=SeatCountSerializer()))
    def get_seats(self, row: dict[str, Any]) -> dict[str, dict[str, int]]:
        return seat_counts(row["seat_record"], self.context["seats"])


class StandingsView(generics.GenericAPIView):
    """A competition's table, for everyone: a page of rows plus the competition's wins by seat."""

    permission_classes = [permissions.AllowAny]
    pagination_class = StandingsPagination
    filter_backends: list[Any] = []


class LadderStandingsView(StandingsView):
    serializer_class = LadderStandingSerializer

    @extend_schema(tags=["ladders"], summary="A ladder's table, by conservative rating, with wins by seat",
                   responses={200: LadderStandingSerializer(many=True), **errors(400, 404)})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.ladder = get_object_or_404(Ladder, pk=self.kwargs["pk"])
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None, "standings are always paginated"
        # The names of the page's versions in a query of their own: joined into the ratings, they would join into
        # the page's COUNT too.
        names = {row["bot_version"]: row for row in BotVersion.objects.filter(pk__in=[r["bot_version"] for r in page])
                 .values("bot_id", bot_version=F("pk"), bot_name=F("bot__name"), version=F("number"),
                         owner=F(f"bot__owner__{User.USERNAME_FIELD}"))}
        hidden = hidden_versions(request.user, names)
        rows = [dict(row, **(_hidden_standing(names[v]) if v in hidden else names[v]))
                for row in page for v in [row["bot_version"]]]
        response = self.get_paginated_response(self.get_serializer(rows, many=True).data)
        seats = self.ladder.players_per_match
        response.data["seat_win_rates"] = seat_counts(ladder_seat_record(self.ladder), seats)
        return response

    def get_serializer_context(self) -> dict[str, Any]:
        return dict(super().get_serializer_context(), seats=self.ladder.players_per_match)

    def get_queryset(self) -> QuerySet[Any, Any]:  # rows as dicts, ranked
        return (Rating.objects.filter(ladder_id=self.kwargs["pk"]).annotate(rank_key=conservative_in_sql())
                .order_by("-rank_key", "pk").values("bot_version", "mu", "sigma", "games", "wins", "seat_record",
                                                    "rank_key"))


def _hidden_standing(names: Mapping[str, Any]) -> dict[str, Any]:
    return dict(names, bot_version=None, bot_id=None, bot_name=PRIVATE_LABEL, version=None, owner=None)


class TournamentStandingSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField(source="version_id", allow_null=True, help_text=HIDDEN_HELP)
    name = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    points = serializers.FloatField(help_text="one per opponent finished ahead of, half per tie")
    mean_score = serializers.FloatField()
    forfeits = serializers.IntegerField()
    rating = serializers.FloatField(source="conservative", help_text="mu - 3 sigma")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField()
    seats = serializers.SerializerMethodField(help_text=SEAT_COUNTS_HELP)

    @extend_schema_field(serializers.DictField(child=SeatCountSerializer()))
    def get_seats(self, standing: Standing) -> dict[str, dict[str, int]]:
        return seat_counts(standing.seat_record, self.context["seats"])

    def to_representation(self, standing: Standing) -> dict[str, Any]:
        """The line, with a bot the reader may not see (its version in the context's `hidden`) as a private one."""
        data: dict[str, Any] = super().to_representation(standing)
        if standing.version_id in self.context["hidden"]:
            data.update(bot_version=None, name=PRIVATE_LABEL)
        return data


class TournamentStandingsView(StandingsView):
    serializer_class = TournamentStandingSerializer

    @extend_schema(tags=["tournaments"], summary="A tournament's standings: points, then rating, with wins by seat",
                   responses={200: TournamentStandingSerializer(many=True), **errors(400, 404)})
    def get(self, request: Request, pk: int) -> Response:
        tournament = get_object_or_404(Tournament, pk=pk)
        standings = tournament_standings(tournament)
        page = self.paginate_queryset(standings)
        assert page is not None, "standings are always paginated"
        seats = tournament.players_per_table
        hidden = hidden_versions(request.user, [standing.version_id for standing in page])
        context = dict(self.get_serializer_context(), seats=seats, hidden=hidden)
        response = self.get_paginated_response(self.get_serializer(page, many=True, context=context).data)
        response.data["seat_win_rates"] = seat_totals((standing.seat_record for standing in standings), seats)
        return response
