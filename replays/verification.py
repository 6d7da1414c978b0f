"""Every replay verified by re-simulation, after its match (docs/architecture.md#replays).

The runner records a result with its replay `verifying` (the footer's digest made as the game was played), then
sends `verify_replay` (a Celery task; the embedded pool's child after the match). It re-simulates the replay as
stored: verified; or a mismatch, and the result is reverted
(tournaments.services.revert_result: the match failed, unrated and uncounted) and the replay flagged with the reason.
Beat's `sweep_unverified` verifies the replays still verifying a while after their result: a lost message never
leaves one unverified. Tournaments and version tests move on only from verified results (`still_verifying`), so no
replay may stay verifying for ever on its own account: one whose re-simulation raises in the game's own code is a
mismatch too (not_the_game). One whose file cannot be read stays verifying, for the sweep: the store may be down,
or not the one that holds it (a worker misconfigured with a filesystem store of its own), and no result is
reverted for the store's sake.
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

from django.db import DatabaseError
from django.db.models import QuerySet
from django.utils import timezone

from replays.format import ReplayFormatError
from replays.models import Replay
from replays.storage import ReplayUnavailable
from replays.verify import ReplayMismatch, verify_document
from replays.version_test_measures import advance_after
from tournaments.models import Match
from tournaments.services import finish_tournament_if_done, revert_result

logger = logging.getLogger(__name__)

Verification = Replay.Verification
SWEEP_BATCH = 200  # replays one sweep verifies at most; the next takes the rest
MISMATCH = "replay verification failed: "  # the reverted match's error, then the reason


def not_the_game(exc: BaseException) -> bool:
    """Whether an exception raised while verifying is the worker's or its task's, not the game's: memory, stack depth
    (which the caller's own depth decides), the operating system, the database, or Celery's time limits. Such a
    verification is left for the sweep. Anything else a re-simulation raises is the game's own code failing where
    the match's run did not: a mismatch."""
    return isinstance(exc, MemoryError | RecursionError | OSError | DatabaseError) or _task_ending(exc)


def _task_ending(exc: BaseException) -> bool:
    """Celery's (or its pool's) own exceptions: a time limit, a worker shutting down."""
    return type(exc).__module__.split(".")[0] in ("celery", "billiard")


def verify_replay(match_id: int) -> str:
    """Re-simulate the match's replay if it is still verifying; return "verified", "mismatch", "unavailable" (the
    store cannot return its file: left verifying for the sweep) or what it already was. Raises what is not the
    game's (not_the_game), leaving it verifying for the sweep. Safe to run twice, concurrently."""
    replay = Replay.objects.filter(match_id=match_id).select_related("match").first()
    if replay is None:
        return "missing"
    if replay.verification != Verification.VERIFYING:
        return f"already {replay.verification}"
    try:
        document = replay.document()
    except ReplayUnavailable:  # a key the store says is missing too: the store may be another machine's own
        logger.warning("replay of match %s: the store does not answer; verified later", match_id, exc_info=True)
        return "unavailable"
    except (ReplayMismatch, ReplayFormatError) as exc:  # bytes that are not the recorded ones, or no replay
        return _mismatch(match_id, str(exc))
    try:
        verify_document(document)
    except (ReplayMismatch, ReplayFormatError) as exc:
        return _mismatch(match_id, str(exc))
    except Exception as exc:
        if not_the_game(exc):
            raise
        logger.exception("replay of match %s: the re-simulation raised", match_id)
        return _mismatch(match_id, f"the re-simulation raised {type(exc).__name__}: {exc}")
    if Replay.objects.filter(pk=replay.pk, verification=Verification.VERIFYING).update(
            verification=Verification.VERIFIED):
        _moves_on(replay.match)
    return "verified"


def _moves_on(match: Match) -> None:
    """What waited on this verification moves on (tournaments.dispatch.results_verifying): its tournament's next
    round or end, its version test's tally. A reverted result's tournament moves on in revert_result."""
    if match.tournament_id:
        finish_tournament_if_done(match.tournament_id)  # which logs its own failure, for beat to retry
    else:
        _advance_test(match.pk, Match.Status.FINISHED)


def _advance_test(match_id: int, outcome: str) -> None:
    try:
        advance_after(match_id, outcome)
    except Exception:  # the verification is done all the same: beat's workers.advance_version_tests tries again
        logger.exception("advancing the version test of match %s failed; beat retries", match_id)


def _mismatch(match_id: int, why: str) -> str:
    logger.error("replay of match %s does not verify: %s; reverting its result", match_id, why)
    flag = functools.partial(_flag, why=why)
    if not revert_result(match_id, MISMATCH + why, flag=flag):
        flag(match_id)  # the match was not finished (reverted already): the replay is flagged all the same
    _advance_test(match_id, Match.Status.FAILED)  # a version test's game: its deal is void
    return "mismatch"


class NotVerifying(Exception):
    """The replay is no longer verifying: verified, flagged or voided meanwhile."""


def void_unverified(match_id: int, reason: str) -> None:
    """An operator gives up on a replay still verifying whose file is lost for good (the store's files deleted, no
    backup): its result is reverted as a mismatch's is, with `voided by an operator: reason` as the match's error
    and the replay's flag, and its tournament waits on the failed match, to be requeued. Raises NotVerifying when the
    replay was verified or flagged first (then nothing changes: a verified result stands)."""
    why = f"voided by an operator: {reason}"

    def flag(match_id: int) -> None:  # in revert_result's transaction: a verification that won rolls it back
        if not Replay.objects.filter(match_id=match_id, verification=Verification.VERIFYING).update(
                verification=Verification.MISMATCH, verify_error=why[-4000:]):
            raise NotVerifying(f"the replay of match {match_id} is no longer verifying")

    if not Replay.objects.filter(match_id=match_id, verification=Verification.VERIFYING).exists():
        raise NotVerifying(f"match {match_id} has no replay still verifying")
    logger.error("replay of match %s: %s; reverting its result", match_id, why)
    if not revert_result(match_id, MISMATCH + why, flag=flag):
        flag(match_id)
    _advance_test(match_id, Match.Status.FAILED)


def _flag(match_id: int, why: str) -> None:
    Replay.objects.filter(match_id=match_id).update(verification=Verification.MISMATCH, verify_error=why[-4000:])


def still_verifying(matches: QuerySet[Match], limit: int) -> list[int]:
    """Those of these matches (at most limit, by id) whose replays are still verifying
    (tournaments.dispatch.verifying_results, which config/apps.py gives this check): one query, the matches a
    subquery."""
    return list(Replay.objects.filter(match__in=matches, verification=Verification.VERIFYING)
                .order_by("match_id").values_list("match_id", flat=True)[:limit])


def sweep_unverified(older_than: float) -> int:
    """Verify the replays still verifying `older_than` seconds after they were stored (a lost message, a worker
    that stopped before it verified); return how many were checked."""
    stale = Replay.objects.filter(verification=Verification.VERIFYING,
                                  created_at__lt=timezone.now() - timedelta(seconds=older_than))
    # Half the oldest, half at random: replays that cannot be read yet (their store down, or not this worker's)
    # stay verifying, and must not fill every batch, so that a newer one whose message was lost is reached too.
    oldest = list(stale.order_by("created_at").values_list("match_id", flat=True)[:SWEEP_BATCH // 2])
    found = oldest + list(stale.exclude(match_id__in=oldest).order_by("?").values_list("match_id", flat=True)[
        :SWEEP_BATCH - len(oldest)])
    if found:
        logger.warning("verification: %s replay(s) still verifying after %s s; verifying them now", len(found),
                       older_than)
    for match_id in found:
        try:
            verify_replay(match_id)
        except Exception as exc:  # one replay's failure (a database error) must not keep the sweep from the others
            if _task_ending(exc):
                raise  # the task's time is up
            logger.exception("verification: match %s failed; the next sweep tries it again", match_id)
    return len(found)
