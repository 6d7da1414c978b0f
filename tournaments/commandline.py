"""manage.py's front door: a missing setting or a database that is not ready is one line naming it, no traceback."""

from __future__ import annotations

import sys
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError


def execute(argv: list[str]) -> None:
    """Run a management command; exit 1 with one line when the settings or the database are not ready for it."""
    from django.conf import settings
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 - loads the settings, which read and check the environment
    except ImproperlyConfigured as exc:
        sys.exit(f"manage.py: {exc}")
    try:
        execute_from_command_line(argv)
    except DatabaseError:
        problem = database_problem()
        if problem is None:
            raise
        sys.exit(f"manage.py: {problem}")


def database_problem() -> str | None:
    """Why the default database cannot serve commands (unreachable, or not migrated), or None when it can."""
    from django.db import connection, connections
    from django.db.migrations.executor import MigrationExecutor

    connections.close_all()  # a fresh connection: the failed one may be in an aborted transaction
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as exc:
        return f"cannot use the database {describe(connection.settings_dict)}: {first_line(exc)}"
    if pending:
        return (f"the database {describe(connection.settings_dict)} is not migrated ({len(pending)} migrations "
                "not applied): run `.venv/bin/python manage.py migrate` first (`make demo` does)")
    return None


def describe(database: dict[str, Any]) -> str:
    """The database as an operator knows it, without its password: a SQLite file, or name@host:port."""
    if "sqlite" in database["ENGINE"]:
        return str(database["NAME"])
    return f"{database['NAME']}@{database['HOST'] or 'localhost'}:{database['PORT'] or 'default port'}"


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
