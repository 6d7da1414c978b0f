"""replays' side of tournaments.signals: the replay is stored, and the live progress dropped, with the result."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.dispatch import receiver

from replays.models import Replay
from replays.progress import MatchProgress
from tournaments.models import Match
from tournaments.signals import attempt_ended


@receiver(attempt_ended, dispatch_uid="replays.store_with_the_result")
def store_with_the_result(sender: type[Match], match_id: int, match: Match | None = None,
                          document: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """The replay, or the next attempt, replaces the live progress: one statement (on PostgreSQL) that deletes the
    progress and inserts the replay, if any (a second replay for the match: IntegrityError, and the whole result
    rolls back). Written out: the ORM's save() and delete() cost more than the statement, on every result."""
    quote = connection.ops.quote_name
    drop = f"DELETE FROM {quote(MatchProgress._meta.db_table)} WHERE match_id = %s"
    if document is None or match is None:
        with connection.cursor() as cursor:
            cursor.execute(drop, [match_id])
        return
    replay = Replay.from_document(match, document)
    replay.size = len(bytes(replay.actions))  # as Replay.save
    fields = [field for field in Replay._meta.concrete_fields if not field.primary_key]
    values = [field.get_db_prep_save(field.pre_save(replay, True), connection) for field in fields]  # as the ORM's
    names = ", ".join(quote(str(field.column)) for field in fields)
    insert = f"INSERT INTO {quote(Replay._meta.db_table)} ({names}) VALUES ({', '.join(['%s'] * len(fields))})"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"WITH dropped AS ({drop}) {insert}", [match_id, *values])
        else:  # SQLite has no DELETE in a WITH
            cursor.execute(insert, values)
            cursor.execute(drop, [match_id])
