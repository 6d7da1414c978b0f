"""What every API module shares: roles, strict input, pagination and filters that answer 400 with a clear message.

Roles (docs/architecture.md#api-and-web): anonymous users read public data; authors manage their own bots; organisers
(the
`organisers` group, or the `tournaments.add_tournament` permission) manage their own ladders and tournaments;
staff do everything.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import django_filters
from django import forms
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema_field, inline_serializer
from rest_framework import exceptions, pagination, permissions, serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.views import APIView, exception_handler

from engine import InvalidOptions, game_names, load_game
from tournaments.numbers import MAX_ID as MAX_ID  # re-exported: the API's bounds on ids
from tournaments.numbers import is_whole as is_whole  # re-exported: the pages read paths with it too
from tournaments.visibility import is_staff as is_staff  # re-exported: visibility decides who is staff

ORGANISERS_GROUP = "organisers"
MAX_PAGE_SIZE = 100

ERROR = inline_serializer("Error", fields={"detail": serializers.CharField()})
# A 400 names each bad field (or query parameter) with its messages, or says what is wrong in `detail`.
BAD_INPUT = OpenApiTypes.OBJECT
ERRORS = {
    400: OpenApiResponse(BAD_INPUT, description="bad input: each field with what is wrong, or `detail`"),
    401: OpenApiResponse(ERROR, description="no credentials"),
    403: OpenApiResponse(ERROR, description="not allowed for this user"),
    404: OpenApiResponse(ERROR, description="not found, or not visible to this user"),
    429: OpenApiResponse(ERROR, description="too many at once: `detail` names the limit"),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}


# --- roles ----------------------------------------------------------------------------------------------------------


def is_organiser(user: Any) -> bool:
    """Staff, members of the organisers group, or users with the permission to add tournaments."""
    if not (user and user.is_authenticated):
        return False
    if user.is_staff:
        return True
    return bool(user.groups.filter(name=ORGANISERS_GROUP).exists() or user.has_perm("tournaments.add_tournament"))


class ReadOnlyOrAuthenticated(permissions.BasePermission):
    """Anyone reads; writes need a login (ownership is checked per object)."""

    anonymous_reads = True  # the schema says authentication is optional for reads (api/schema.py)

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_authenticated)


class ReadOnlyOrOrganiser(permissions.BasePermission):
    """Anyone reads; organisers create; only the creator (or staff) changes, starts or cancels."""

    message = "only organisers (the 'organisers' group) and staff may do this"
    anonymous_reads = True

    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return is_organiser(request.user)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        if is_staff(request.user):
            return True
        self.message = "only the organiser who created it (or staff) may change it"
        return bool(obj.created_by_id == request.user.pk)


# --- strict input ---------------------------------------------------------------------------------------------------


class StrictSerializer(serializers.Serializer):
    """Rejects fields it does not know, and read-only ones, instead of silently ignoring them; and a number where
    text belongs (DRF would turn 0 into "0"). The schema says so: `additionalProperties: false` (api/schema.py)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            problems = {key: [f"unknown field {key!r}" if key not in self.fields else f"field {key!r} is read-only"]
                        for key in data if key not in writable}
            problems.update({key: [f"field {key!r} must be a string, got {data[key]!r}"] for key in writable & set(data)
                             if isinstance(self.fields[key], serializers.CharField)
                             and data[key] is not None and not isinstance(data[key], str)})
            if problems:
                raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class StrictModelSerializer(StrictSerializer, serializers.ModelSerializer):
    pass


def django_errors(exc: DjangoValidationError) -> exceptions.ValidationError:
    """A model ValidationError as DRF's 400."""
    if hasattr(exc, "message_dict"):
        return exceptions.ValidationError(exc.message_dict)
    return exceptions.ValidationError({"detail": exc.messages})


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Any:
    """DRF's handler, plus Django's ValidationError as a 400 instead of a 500."""
    if isinstance(exc, DjangoValidationError):
        exc = django_errors(exc)
    return exception_handler(exc, context)


# --- pages and filters ----------------------------------------------------------------------------------------------


class Pagination(PageNumberPagination):
    """`?page=` and `?page_size=` (at most 100); a bigger or malformed page size is a 400, not a silent cap."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not is_whole(raw) or int(raw) < 1:
            raise exceptions.ValidationError({"page_size": [f"page_size must be a whole number from 1 to "
                                                            f"{self.max_page_size}, got {raw!r}"]})
        if int(raw) > self.max_page_size:
            raise exceptions.ValidationError({"page_size": [f"page_size {raw} is over the maximum of "
                                                            f"{self.max_page_size}"]})
        return int(raw)

    def paginate_queryset(self, queryset: Any, request: Request, view: APIView | None = None) -> Any:
        page = request.query_params.get(self.page_query_param, "1")
        if page != "last" and (not is_whole(page) or int(page) < 1):
            raise exceptions.ValidationError({"page": [f"page must be a whole number from 1, got {page!r}"]})
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update({"minimum": 1, "maximum": self.max_page_size})
            if parameter["name"] == self.page_query_param:
                parameter["schema"].update({"minimum": 1})
        return parameters


class StrictPageSize:
    """The page-size rule of Pagination, shared by CursorPagination."""

    page_size_query_param: str | None = "page_size"
    max_page_size: int | None = MAX_PAGE_SIZE
    page_size: int | None = 20

    def get_page_size(self, request: Request) -> int:
        return Pagination.get_page_size(self, request)  # type: ignore[arg-type]


class CursorPagination(StrictPageSize, pagination.CursorPagination):
    """For the big, growing lists (matches): newest first, no COUNT and no OFFSET, so page 1000 costs what page 1
    does. `next` and `previous` carry the cursor."""

    ordering = "-id"
    invalid_cursor_message = ("no such page: the cursor is not one of this list's; follow a page's `next` or "
                              "`previous` link as given")

    def decode_cursor(self, request: Request) -> pagination.Cursor | None:
        """DRF's cursor, checked: one it cannot read, or without a position that is an id, is a 404 naming the
        cursor, as DRF answers one it cannot decode (no such page; a schema-valid string is no bad input), where DRF
        would read the first as page 1 and pass the second to the database as text, a 500. An empty one is page 1."""
        try:
            cursor = super().decode_cursor(request)
        except exceptions.NotFound:
            cursor = None
        else:
            position = cursor.position if cursor is not None else None
            if not request.query_params.get(self.cursor_query_param):
                return cursor
            if position is not None and is_whole(str(position)) and int(position) <= MAX_ID:
                return cursor
        raise exceptions.NotFound(self.invalid_cursor_message)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update({"minimum": 1, "maximum": self.max_page_size})
        return parameters


PAGING_PARAMETERS = {"page", "page_size", "cursor"}


class StrictFilterBackend(DjangoFilterBackend):
    """django-filter, plus a 400 naming any query parameter that is no filter (a typo would otherwise match all),
    and any empty value but a free text's (`?status=` or `?finished_before=` would otherwise match all)."""

    def filter_queryset(self, request: Any, queryset: QuerySet[Any], view: APIView) -> QuerySet[Any]:
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            filters = filterset_class.base_filters
            known = set(filters) | PAGING_PARAMETERS | set(getattr(view, "extra_query", ()))
            unknown = sorted(set(request.query_params) - known)
            if unknown:
                raise exceptions.ValidationError({name: [f"unknown filter {name!r}; known filters: "
                                                         f"{', '.join(sorted(filters))}"] for name in unknown})
            empty = sorted(name for name, value in request.query_params.items()
                           if value == "" and type(filters.get(name)) is not django_filters.CharFilter
                           and name != "cursor")
            if empty:
                raise exceptions.ValidationError({name: [f"{name} is empty; leave it out to match any"]
                                                  for name in empty})
        return super().filter_queryset(request, queryset, view)


class StrictBooleanFilter(django_filters.BooleanFilter):
    """`true` or `false`; anything else is a 400 (django-filter would read `null` as no filter at all)."""

    def filter(self, qs: QuerySet[Any], value: Any) -> QuerySet[Any]:
        parent = getattr(self, "parent", None)  # the FilterSet, set by django-filter (its stubs omit it)
        name = self.field_name or ""
        raw = parent.data.get(name) if parent is not None else None
        if raw is not None and raw not in ("true", "false"):
            raise exceptions.ValidationError({name: [f"{name} must be true or false, got {raw!r}"]})
        return super().filter(qs, value)


def limit_choices(field: Any, queryset: QuerySet[Any]) -> None:
    """Let a many-related serializer field (DRF's ManyRelatedField) accept only these objects."""
    field.child_relation.queryset = queryset


GAME_CHOICES = game_names()


def game_field(**kwargs: Any) -> serializers.ChoiceField:
    """A registered game's name: an enum in the schema; another name is a 400 naming the known games."""
    message = f"unknown game {{input!r}}; known games: {', '.join(GAME_CHOICES)}"
    return serializers.ChoiceField(choices=GAME_CHOICES, error_messages={"invalid_choice": message}, **kwargs)


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(django_filters.NumberFilter):
    """An object's id: a whole number from 1 (`5.7e+193` or `0` is a 400, not a silent empty list)."""

    field_class = forms.IntegerField  # type: ignore[assignment]  # NumberFilter's is a DecimalField; ids are whole

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, min_value=1, max_value=MAX_ID, **kwargs)


@extend_schema_field({"type": "string", "enum": GAME_CHOICES})
class GameFilter(django_filters.CharFilter):
    """A registered game's name; an unknown one is a 400 naming the known games."""

    def filter(self, qs: QuerySet[Any], value: Any) -> QuerySet[Any]:
        if value:
            try:
                load_game(value)
            except (InvalidOptions, ImportError) as exc:
                raise exceptions.ValidationError({(self.field_name or "").split("__")[-1]: [str(exc)]}) from None
        return super().filter(qs, value)



def to_utc(value: datetime, name: str) -> datetime:
    """A date-time in UTC, so PostgreSQL never sees an offset it refuses (it allows less than 16 hours)."""
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError):
        raise exceptions.ValidationError({name: [f"{value.isoformat()} is out of range"]}) from None


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    """An ISO 8601 date-time filter; any offset is converted to UTC first."""

    def filter(self, qs: QuerySet[Any], value: Any) -> QuerySet[Any]:
        if value is not None:
            value = to_utc(value, self.field_name or "")
        return super().filter(qs, value)
