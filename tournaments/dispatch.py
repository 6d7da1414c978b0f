"""The one seam where the web side hands work to the runners (docs/architecture.md#four-packages-one-direction).

`tournaments` and `replays` never import `workers` (the import contracts in pyproject.toml, checked by
`lint-imports` in `make lint`). They name what they need here (Runner), and the top layer registers what provides
it with `use_runner` when Django starts: `workers.dispatch` (config/apps.py, the composition root), which sends to
Celery when a broker is configured and to the embedded process pool otherwise. The one thing tournaments asks of
replays, whether results are still verifying (`results_verifying`), is registered the same way.

The match row is the outbox: `enqueue_matches` sends after commit, a row is marked sent just before
its message goes out, and beat's `send_outbox` sends whatever a broker outage left unsent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from datetime import timedelta
from functools import cache
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Now

from tournaments.models import Match

logger = logging.getLogger(__name__)
Status = Match.Status


class RunnerUnavailable(RuntimeError):
    """The runner could not do the work now (a sandbox failure, not the bot's); the work is kept for a retry."""


class Runner(Protocol):
    """What the web side asks of the runners; `workers.dispatch` provides it."""

    def send_match(self, match_id: int, priority: int) -> None:
        """Hand a queued match to a runner, now (Celery takes priority 0 first; the embedded pool ignores it)."""

    def send_validation(self, version_id: int) -> Future[str] | Any:
        """Hand a bot version's validation to a runner, now."""

    def send_analysis(self, analysis_id: int) -> None:
        """Hand a match analysis (docs/analysis.md) to a runner, behind every queued match (PRIORITY_ANALYSIS)."""

    def send_verification(self, match_id: int) -> None:
        """Hand a recorded match's replay to a runner to verify by re-simulation (docs/architecture.md#replays)."""

    def stale_validations(self) -> list[int]:
        """Versions whose validation was lost (a dead worker, a broker outage)."""

    def run_match_here(self, match_id: int) -> str:
        """Play a match in this process (try_bot)."""

    def validate_here(self, version_id: int) -> str:
        """Validate a version in this process; raises RunnerUnavailable when the sandbox failed."""

    def embedded_errors(self) -> list[BaseException]:
        """Crashes of the embedded pool's children (failed matches are in the database, not here)."""

    def stop_embedded(self) -> None:
        """Stop the embedded pool (it starts again on demand)."""


_load_runner: Callable[[], Runner] | None = None


def use_runner(load: Callable[[], Runner]) -> None:
    """Register what provides the Runner; `load` is called on first use, so a process that never dispatches never
    imports the runners (docs/architecture.md#configuration)."""
    global _load_runner
    _load_runner = load
    runner.cache_clear()


@cache
def runner() -> Runner:
    if _load_runner is None:
        raise ImproperlyConfigured("no runner is registered: the `config` app (config/apps.py) registers one when "
                                   "Django starts; is it in INSTALLED_APPS?")
    return _load_runner()


_verifying: Callable[[QuerySet[Match], int], list[int]] | None = None


def use_verification_check(verifying: Callable[[QuerySet[Match], int], list[int]]) -> None:
    """Register replays' check (replays.verification.still_verifying; config/apps.py)."""
    global _verifying
    _verifying = verifying


def verifying_results(matches: QuerySet[Match], limit: int = 100) -> list[int]:
    """Those of these finished matches (at most limit, by id) whose replays are still verifying. Their results may
    yet be reverted (replays/verification.py), so nothing may rest on them yet: a tournament's next round or end
    (tournaments/advancement.py), a version test's tally (tournaments/version_tests.py). The verification moves each
    on when it is done."""
    if _verifying is None:
        raise ImproperlyConfigured("no verification check is registered: the `config` app (config/apps.py) registers "
                                   "one when Django starts; is it in INSTALLED_APPS?")
    return _verifying(matches, limit)


def results_verifying(matches: QuerySet[Match]) -> bool:
    return bool(verifying_results(matches, 1))


# --- the outbox ---------------------------------------------------------------------------------------------------


def enqueue_match(match: Match) -> None:
    """Hand the match id to a runner once the current transaction commits, so the runner sees the rows."""
    enqueue_matches([match.pk])


def enqueue_matches(match_ids: Sequence[int], priority: int | None = None) -> None:
    """Send these new matches once the current transaction commits. The row is the outbox: a send that fails (the
    broker is down) leaves dispatched_at empty, and the beat's send_outbox sends them when the broker is back."""
    ids = list(match_ids)
    transaction.on_commit(lambda: send_matches(ids, priority=priority))


def dispatch_match(match_id: int, priority: int | None = None) -> None:
    """Send now, through the dispatch seam (Celery, or the embedded pool). Raises when the broker cannot take it;
    most callers want send_matches, which records what was sent."""
    runner().send_match(match_id, PRIORITY_NEW if priority is None else priority)


# Redis pops priority 0 first (kombu's priority steps 0, 3, 6, 9): new matches wait at 6, recovered ones go first,
# version tests' games (tournaments/version_tests.py) and analyses' turns (replays/analysis_jobs.py) come last.
PRIORITY_RECOVERED, PRIORITY_NEW, PRIORITY_TEST = 0, 6, 9
PRIORITY_ANALYSIS = 9


def send_matches(match_ids: Sequence[int], recovered: bool = False, priority: int | None = None) -> int:
    """Send the queued matches among these that have no message yet; return how many the broker took. Never
    raises: what was not sent stays in the outbox. A retried (attempts > 0) or recovered match jumps the queue.

    Each row is marked sent before its message goes out, under a row lock that other senders skip, so no two
    senders ever send one match; a sender that dies between the two leaves a "sent" match with no message, which
    the lost-message finder (redispatch_lost) sends again.
    """
    ids, sent = list(match_ids), 0
    for start in range(0, len(ids), SEND_BATCH):  # marked a batch at a time: a mark is never long before its send
        rows, done = _mark_sent(ids[start:start + SEND_BATCH]), 0
        try:
            for match_id, attempts in rows:
                first = PRIORITY_NEW if priority is None else priority
                dispatch_match(match_id, PRIORITY_RECOVERED if recovered or attempts else first)
                done += 1
        except Exception as exc:  # the broker is down: the outbox keeps the rest, and the request still succeeds
            logger.warning("dispatch: %s match(es) not sent, left in the outbox for beat to send: %s",
                           len(ids) - start - done, exc)
            Match.objects.filter(pk__in=[pk for pk, _ in rows[done:]], status=Status.QUEUED).update(dispatched_at=None)
            return sent + done
        sent += done
    return sent


SEND_BATCH = 200


def _mark_sent(match_ids: list[int]) -> list[tuple[int, int]]:
    """Mark the queued, unsent matches among these as sent; return them (id, attempts). Rows another sender holds
    are skipped, and once it commits they are no longer unsent."""
    with transaction.atomic():
        rows = list(Match.objects.select_for_update(skip_locked=True)
                    .filter(pk__in=match_ids, status=Status.QUEUED, dispatched_at__isnull=True)
                    .order_by("-attempts", "pk").values_list("pk", "attempts"))
        Match.objects.filter(pk__in=[pk for pk, _ in rows]).update(dispatched_at=Now())
    return rows


def send_outbox(limit: int = 1000) -> int:
    """Beat: send the queued matches that have no message yet (the broker was down, or a retry's back-off is over).

    New matches get OUTBOX_GRACE_SECONDS for their own on-commit send first. What the outbox sends has waited
    (a retry, a lost message, a broker outage's leftovers), so it jumps the queue.
    """
    fresh_due = Q(dispatch_after__isnull=True, queued_at__lt=Now() - timedelta(seconds=OUTBOX_GRACE_SECONDS))
    due = Q(dispatch_after__isnull=False, dispatch_after__lte=Now()) | fresh_due
    ids = list(Match.objects.filter(due, status=Status.QUEUED, dispatched_at__isnull=True)
               .order_by("-attempts", "pk").values_list("pk", flat=True)[:limit])
    return send_matches(ids, recovered=True)


OUTBOX_GRACE_SECONDS = 2
