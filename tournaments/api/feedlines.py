"""The lines of the live feeds (replays/api/feeds.py): an `application/x-ndjson` body is one JSON object per line,
each line one of these kinds, told apart by `type`. The feeds write each line with its serializer, so the schema
that describes them (a generated client decodes each line by it) is what they write."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer
from rest_framework import serializers

from tournaments.models import Match

PRIVATE_HELP = "null for a private bot the reader may not see (its name reads `private bot`)"


def kind(name: str) -> serializers.ChoiceField:
    """The `type` of a line, a one-value enum (named in SPECTACULAR_SETTINGS' ENUM_NAME_OVERRIDES)."""
    return serializers.ChoiceField(choices=[name], help_text="the kind of line")


class FeedSeat(serializers.Serializer):
    seat = serializers.IntegerField()
    bot_version = serializers.IntegerField(allow_null=True, help_text=PRIVATE_HELP)
    bot = serializers.CharField()
    version = serializers.IntegerField(allow_null=True, help_text=PRIVATE_HELP)


class MatchLine(serializers.Serializer):
    type = kind("match")
    match = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    players = serializers.IntegerField()
    seats = FeedSeat(many=True)


class ActionLine(serializers.Serializer):
    type = kind("action")
    step = serializers.IntegerField(help_text="1 for the first action")
    seat = serializers.IntegerField()
    ms = serializers.IntegerField(required=False, help_text="the seat's thinking time")
    cpu_ms = serializers.IntegerField(required=False, help_text="the move's CPU time, for a sandboxed seat")
    fault = serializers.CharField(required=False, help_text="set when the seat faulted and played the default")
    events = serializers.ListField(child=serializers.JSONField(), help_text="the public events the action caused")


class RestartLine(serializers.Serializer):
    type = kind("restart")


class EndLine(serializers.Serializer):
    type = kind("end")
    status = serializers.ChoiceField(choices=Match.Status.choices, help_text="finished, failed or cancelled")
    steps = serializers.IntegerField()
    outcome = serializers.JSONField(required=False, help_text="scores and ranks, when the match finished")


class ErrorLine(serializers.Serializer):
    type = kind("error")
    detail = serializers.CharField(help_text="why the feed stopped (the match's actions do not replay, a server "
                                             "error); the last line of its connection")


class MatchTimeoutLine(serializers.Serializer):
    type = kind("timeout")
    steps = serializers.IntegerField(help_text="actions sent; reconnect to follow on (from the start)")


class LadderLine(serializers.Serializer):
    type = kind("ladder")
    ladder = serializers.IntegerField()
    since = serializers.DateTimeField()


class ResultSeat(FeedSeat):
    score = serializers.FloatField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    forfeited = serializers.BooleanField()
    rating_mu_before = serializers.FloatField(allow_null=True, help_text=PRIVATE_HELP)
    rating_mu_after = serializers.FloatField(allow_null=True, help_text=PRIVATE_HELP)


class ResultLine(serializers.Serializer):
    type = kind("result")
    match = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    rated = serializers.BooleanField()
    seats = ResultSeat(many=True)


class LadderTimeoutLine(serializers.Serializer):
    type = kind("timeout")
    since = serializers.DateTimeField(help_text="reconnect with this `since` to follow on")


def feed_response(name: str, lines: dict[str, Any], order: str) -> OpenApiResponse:
    line = PolymorphicProxySerializer(component_name=name, serializers=lines, resource_type_field_name="type")
    return OpenApiResponse(line, description=f"newline-delimited JSON (application/x-ndjson): each line one object, "
                                             f"told apart by `type`. {order}")


MATCH_FEED = feed_response(
    "MatchFeedLine",
    {"match": MatchLine, "action": ActionLine, "restart": RestartLine, "end": EndLine, "timeout": MatchTimeoutLine,
     "error": ErrorLine},
    "First a `match` line; then an `action` line per action (a `restart` line when a retried match starts again "
    "from step 0); last an `end` line once the match is over, a `timeout` line when the connection's time is up, "
    "or an `error` line when the feed cannot go on.",
)
LADDER_FEED = feed_response(
    "LadderFeedLine", {"ladder": LadderLine, "result": ResultLine, "timeout": LadderTimeoutLine, "error": ErrorLine},
    "First a `ladder` line; then a `result` line per match finished since `since`; last a `timeout` line when the "
    "connection's time is up, or an `error` line when the feed cannot go on.",
)
