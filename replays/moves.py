"""Action logs moved from the database to the replay store (docs/operations.md#the-replay-store): the pending ones,
which the store did not take when their results were written (beat's housekeeping, workers.move_pending_replays),
and those written before the store existed (manage.py move_replays).

Each is re-simulated (replays/verify.py), written under its content's key, read back and checked against its digest
before its row points at the key and lets its bytes go, in one compare-and-set: a move stopped halfway, or made by
two movers at once, leaves the replay readable and moves it once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db.models import QuerySet

from replays.format import ReplayFormatError, decode_actions
from replays.models import Replay
from replays.storage import ReplayUnavailable, digest_of, read_file, write_file
from replays.verify import ReplayMismatch, verify_document

logger = logging.getLogger(__name__)

PENDING_BATCH = 200  # replays one housekeeping run moves at most; the next run takes the rest


@dataclass
class MoveReport:
    moved: int = 0
    mismatched: list[str] = field(default_factory=list)  # "match N: why", left in the database
    unavailable: str = ""  # why the store stopped the run, if it did


def move_replay(replay: Replay) -> bool:
    """Move one replay's action log to the store, verified; False when another mover did it first. Raises
    ReplayMismatch (or ReplayFormatError) when it does not re-simulate, ReplayUnavailable when the store fails:
    either way the replay stays in the database as it was."""
    data = replay.raw_bytes()
    verify_document({"header": replay.header, "actions": decode_actions(data), "footer": replay.footer})
    digest = digest_of(data)
    key = write_file(data, digest)
    read_file(key, digest)  # what the store holds now is these very bytes
    return Replay.objects.filter(pk=replay.pk, location="").update(
        location=key, digest=digest, actions=None, pending=False) == 1


def move_replays(replays: QuerySet[Replay], limit: int | None = None) -> MoveReport:
    """Move the replays of the queryset still in the database, oldest first; stop at the first store failure."""
    report = MoveReport()
    for replay in replays.filter(location="").order_by("pk")[:limit].iterator(chunk_size=100):
        try:
            report.moved += move_replay(replay)
        except (ReplayMismatch, ReplayFormatError) as exc:
            logger.error("replay of match %s not moved: it does not verify: %s", replay.match_id, exc)
            report.mismatched.append(f"match {replay.match_id}: {exc}")
        except ReplayUnavailable as exc:
            report.unavailable = str(exc)
            break
    return report


def move_pending(limit: int = PENDING_BATCH) -> MoveReport:
    """Housekeeping: move the pending replays (a store that is still down stops the run, and the next one tries)."""
    report = move_replays(Replay.objects.filter(pending=True), limit)
    if report.moved or report.unavailable:
        logger.warning("moved %d pending replay(s) to the store%s", report.moved,
                       f"; stopped: {report.unavailable}" if report.unavailable else "")
    return report
