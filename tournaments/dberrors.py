"""Database errors told apart: a lost connection (a restarted or cut server: reconnect and repeat the statement) from
a statement the server refused (a statement timeout, a full disk), which no reconnect cures and which a match's
error and the logs must name as it is (docs/operations.md#recovery-what-happens-when-a-store-or-a-worker-fails).

Django wraps the driver's error; its SQLSTATE is on the wrapped psycopg error. Class 08 is a connection exception;
57P01-57P03 are a server shutting down or starting; a client-side failure (the socket gone) has none.
"""

from __future__ import annotations

from django.db import InterfaceError

LOST_STATES = ("57P01", "57P02", "57P03")


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of the server's error, or None when the failure was on the client's side."""
    return getattr(exc.__cause__, "sqlstate", None) or getattr(exc, "sqlstate", None)


def is_connection_lost(exc: BaseException) -> bool:
    """True when reconnecting may cure it; False when the server answered and refused the statement."""
    if isinstance(exc, InterfaceError):
        return True
    state = sqlstate(exc)
    return state is None or state.startswith("08") or state in LOST_STATES


def describe(exc: BaseException) -> str:
    """One line: the driver's error class and the server's first line, e.g. "DiskFull: could not extend file ...:
    No space left on device"."""
    cause = exc.__cause__ or exc
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(cause).__name__}: {first}"


def database_trouble(exc: BaseException) -> str:
    """One line for a command that stopped on a database error: unreachable, or which statement it refused."""
    if is_connection_lost(exc):
        return f"the database is unreachable ({describe(exc)})"
    return f"the database refused a statement ({describe(exc)})"
