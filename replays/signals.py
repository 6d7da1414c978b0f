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
    if document is not None and match is not None:
        Replay.from_document(match, document).save()  # a second replay for the match: IntegrityError, rolled back
    # The replay, or the next attempt, replaces the live progress. Written out: the ORM's delete() costs more than
    # the statement (a collector for related rows, and there are none).
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {connection.ops.quote_name(MatchProgress._meta.db_table)} WHERE match_id = %s",
                       [match_id])
