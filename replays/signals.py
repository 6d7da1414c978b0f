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
    """The replay, or the next attempt, replaces the live progress. A second replay for the match raises
    IntegrityError, and the whole result rolls back."""
    if document is not None and match is not None and connection.vendor == "postgresql":
        _store_and_drop(match_id, Replay.from_document(match, document))
        return
    if document is not None and match is not None:
        Replay.from_document(match, document).save()
    MatchProgress.objects.filter(match_id=match_id).delete()


def _store_and_drop(match_id: int, replay: Replay) -> None:
    """Insert the replay and delete the progress in one statement, written out: the ORM's save() and delete() cost
    1.5 ms more than the statement, on every result (a round trip, a collector for related rows, and there are
    none)."""
    replay.size = len(bytes(replay.actions))  # as Replay.save
    fields = [field for field in Replay._meta.concrete_fields if not field.primary_key]
    values = [field.get_db_prep_save(field.pre_save(replay, True), connection) for field in fields]  # as the ORM's
    quote = connection.ops.quote_name
    names = ", ".join(quote(str(field.column)) for field in fields)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH dropped AS (DELETE FROM {quote(MatchProgress._meta.db_table)} WHERE match_id = %s) "
                       f"INSERT INTO {quote(Replay._meta.db_table)} ({names}) "
                       f"VALUES ({', '.join(['%s'] * len(fields))})", [match_id, *values])
