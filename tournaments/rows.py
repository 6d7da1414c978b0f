"""Model instances from rows of written-out SQL, made as a queryset makes them. For the runner's statements on every
match, where building the query cost more than running it (issue 17): the claim with its read, the rating rows."""

from __future__ import annotations

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
    """One instance per model from a row holding each model's columns() in turn; JSON columns decoded."""
    made, start = [], 0
    for model in models:
        fields = model._meta.concrete_fields
        values = list(row[start:start + len(fields)])
        for index, field in enumerate(fields):
            for convert in field.get_db_converters(connection):  # JSON columns arrive as text
                values[index] = convert(values[index], field, connection)
        made.append(model.from_db(connection.alias, [field.attname for field in fields], values))
        start += len(fields)
    return made
