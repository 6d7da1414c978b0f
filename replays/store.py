"""The replay is stored with its match's result, and the live progress dropped with the attempt.

The runner (workers/runner.py) writes the replay's file first (placed_store: the store's round trip stays out of the
result's transaction), then passes the store function it returns to tournaments.services.record_result, and
drop_progress to
fail_match and requeue_expired; the match admin's cancel passes drop_progress too (replays/admin.py). Each is called
inside the transaction that ends the attempt, so an exception it raises rolls the whole result back
(docs/architecture.md#four-packages-one-direction: replays imports tournaments, never the reverse).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.db import connection

from replays import storage
from replays.format import encode_actions
from replays.models import Replay
from replays.progress import MatchProgress
from tournaments.models import Match


def placed_store(document: dict[str, Any], replaces: bool = False) -> Callable[[Match, dict[str, Any]], None]:
    """Write the document's action log to the replay store now, before the result's transaction; return the store
    function for record_result, which inserts the row pointing at the file (or, the store down, holding the bytes,
    pending). Writing twice (a retried result) writes one file: its key is its content's digest. replaces: the
    match failed before, so a replay that did not verify may be there (replaced, as store_replay says)."""
    return functools.partial(store_replay, placed=place_actions(document), replaces=replaces)


def store_replay(match: Match, document: dict[str, Any], placed: storage.Placement | None = None,
                 replaces: bool = False) -> None:
    """The replay, verifying, replaces the live progress; its action log goes where placed says (without it, it is
    written to the store here). replaces: the replay of an earlier attempt whose result was reverted for a mismatch
    goes first (the match was requeued since). A second replay for the match raises IntegrityError, and the whole
    result rolls back."""
    if replaces:
        Replay.objects.filter(match_id=match.pk, verification=Replay.Verification.MISMATCH).delete()
    replay = Replay.from_document(match, document, placed or place_actions(document))
    if connection.vendor == "postgresql":
        _store_and_drop(match.pk, replay)
        return
    replay.save()
    drop_progress(match.pk)


def place_actions(document: dict[str, Any]) -> storage.Placement:
    """The document's action log written to the store, or kept for the database when the store does not take it."""
    return storage.place(encode_actions(document["actions"]))


def drop_progress(match_id: int) -> None:
    """The attempt ended (failed, requeued, cancelled): its live progress goes; the next attempt writes its own."""
    MatchProgress.objects.filter(match_id=match_id).delete()


def _store_and_drop(match_id: int, replay: Replay) -> None:
    """Insert the replay and delete the progress in one statement, written out: the ORM's save() and delete() cost
    1.5 ms more than the statement, on every result (a round trip, a collector for related rows, and there are
    none)."""
    fields = [field for field in Replay._meta.concrete_fields if not field.primary_key]
    values = [field.get_db_prep_save(field.pre_save(replay, True), connection) for field in fields]  # as the ORM's
    quote = connection.ops.quote_name
    names = ", ".join(quote(str(field.column)) for field in fields)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH dropped AS (DELETE FROM {quote(MatchProgress._meta.db_table)} WHERE match_id = %s) "
                       f"INSERT INTO {quote(Replay._meta.db_table)} ({names}) "
                       f"VALUES ({', '.join(['%s'] * len(fields))})", [match_id, *values])
