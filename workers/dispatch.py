"""The runner side of the dispatch seam (tournaments/dispatch.py names what it must provide; config/apps.py
registers this module): Celery when a broker is configured, else the embedded process pool in this process."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from django.conf import settings

from replays.verification import verify_replay
from tournaments.dispatch import PRIORITY_ANALYSIS, PRIORITY_RECOVERED, PRIORITY_TEST
from workers import embedded, validation
from workers.runner import run_match
from workers.sender import EXIT_SECONDS, Sender


def send_match(match_id: int, priority: int) -> None:
    if settings.CELERY_BROKER_URL and not embedded.is_pool_child():
        from workers.tasks import run_match_task  # the tasks are loaded only where a broker is configured

        run_match_task.apply_async((match_id,), priority=priority)
    else:
        embedded.submit_match(match_id, play_in_child=priority == PRIORITY_TEST)


def send_validation(version_id: int) -> Future[str] | Any:
    if settings.CELERY_BROKER_URL:
        from workers.tasks import validate_version_task  # as in send_match

        return validate_version_task.delay(version_id)
    return embedded.pool().submit(validation.run_embedded, version_id)


def send_analysis(analysis_id: int) -> None:
    if settings.CELERY_BROKER_URL and not embedded.is_pool_child():
        from workers.tasks import analyse_match_task  # as in send_match

        analyse_match_task.apply_async((analysis_id,), priority=PRIORITY_ANALYSIS)
    else:
        embedded.submit_analysis(analysis_id)


def send_verification(match_id: int) -> None:
    """A task ahead of the queued matches (its result is recorded: nothing waits on it but the replay's mark), sent by
    this process's sender thread, so the runner does not wait for the broker (workers/sender.py); in the embedded
    pool's child, once its match is done; with neither, here and now (tools, tests)."""
    if settings.CELERY_BROKER_URL and not embedded.is_pool_child():
        VERIFICATIONS.put(match_id)
    elif embedded.is_pool_child():
        embedded.verify_after(match_id)
    else:
        verify_replay(match_id)


def _send_verification_task(match_id: int) -> None:
    from workers.tasks import verify_replay_task  # as in send_match

    # No retries: a broker that does not take it now must not hold the sender; beat's sweep verifies it later.
    verify_replay_task.apply_async((match_id,), priority=PRIORITY_RECOVERED, retry=False)


VERIFICATIONS = Sender(_send_verification_task, "verification sender")


def flush_verifications(timeout: float = EXIT_SECONDS) -> bool:
    """Wait until the verifications handed to the sender thread are sent (a stopping worker); False on timeout."""
    return VERIFICATIONS.flush(timeout)


def stale_validations() -> list[int]:
    return validation.stale_versions()


def run_match_here(match_id: int) -> str:
    return run_match(match_id)


def validate_here(version_id: int) -> str:
    return validation.validate_version(version_id)


def embedded_errors() -> list[BaseException]:
    return embedded.errors()


def stop_embedded() -> None:
    embedded.shutdown()
