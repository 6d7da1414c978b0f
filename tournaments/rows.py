"""Model instances from rows of written-out SQL, made as a queryset makes them. For the runner's statements on every
match, where building the query cost more than running it: the claim with its read, the rating rows."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Model


def columns(model: type[Model], alias: str) -> str:
    """The model's concrete columns, in field order, qualified by alias: what instances() reads."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(str(field.column))}" for field in model._meta.concrete_fields)


def width(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


def instances(row: Sequence[Any], models: Sequence[type[Model]]) -> list[Any]:
    """One instance per model from a row holding each model's columns() in turn, its values converted as a queryset
    converts them (JSON columns arrive as text; SQLite's dates and booleans too)."""
    made, start = [], 0
    for model in models:
        fields = model._meta.concrete_fields
        values = list(row[start:start + len(fields)])
        for index, converters in _converters(model, connection.vendor):
            value = values[index]
            for convert, expression in converters:
                value = convert(value, expression, connection)
            values[index] = value
        made.append(model.from_db(connection.alias, [field.attname for field in fields], values))
        start += len(fields)
    return made


@functools.cache
def _converters(model: type[Model], vendor: str) -> list[tuple[int, list[tuple[Any, Any]]]]:
    """The converters of the model's columns that have any, by column index: the backend's, then the field's (the
    order of django.db.models.sql.compiler.SQLCompiler.get_converters)."""
    found = []
    for index, field in enumerate(model._meta.concrete_fields):
        column = field.get_col(model._meta.db_table)
        converters = [*connection.ops.get_db_converters(column), *field.get_db_converters(connection)]
        if converters:
            found.append((index, [(convert, column) for convert in converters]))
    return found
