"""The replay insert fails on every attempt (a trigger raises PostgreSQL's `disk_full`, as a full disk does), with
LUDUS_MATCH_ATTEMPTS=3: every match ends failed after at most 3 attempts, and its error names the real cause.

What went wrong before: the runner retried the write, gave up, and its task was sent again; meanwhile the lease ran
out, and the re-sent task claimed the match whose lease had expired (a claim that checked no attempts) before the
reaper could fail it: attempts=4. And the match's error read "the lease of ... expired", the disk only in a log.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from faultkit import reap, wait_until

from tournaments.builtins import ensure_builtin
from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament
from workers.tasks import send_outbox_task

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]

DISK_FULL = """
CREATE FUNCTION ludus_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full';
END $$;
CREATE TRIGGER ludus_test_disk_full BEFORE INSERT ON replays_replay
    FOR EACH ROW EXECUTE FUNCTION ludus_test_disk_full();
"""
UNDO = "DROP TRIGGER IF EXISTS ludus_test_disk_full ON replays_replay; DROP FUNCTION IF EXISTS ludus_test_disk_full();"


@pytest.fixture
def full_disk(db: None) -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute(UNDO + DISK_FULL)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(UNDO)


def test_a_failing_result_write_never_exceeds_the_attempt_limit_and_names_its_cause(
    redis_server: Any, worker_pool: Any, fault_settings: Any, alice: Any, full_disk: None
) -> None:
    fault_settings.LUDUS_MATCH_ATTEMPTS = 3
    worker = worker_pool.start("a", redis_server.url, concurrency=2, LUDUS_MATCH_ATTEMPTS="3",
                               LUDUS_RETRY_SECONDS="0")
    entrants = [ensure_builtin(name, "greedy") for name in ("greedy", "greedy-2", "greedy-3", "greedy-4")]
    tournament = create_tournament(entrants, name="full disk", game="evolution", players_per_table=2, seed=4,
                                   options={"deck": "short"}, created_by=alice)
    matches = Match.objects.filter(pk__in=[m.pk for m in start_tournament(tournament)])  # C(4,2) = 6 matches

    # No reaper yet: a task sent again after its failed write meets the match whose lease ran out. Each match is
    # settled once it failed, or once its last attempt's task came back and was refused (or it went past 3).
    def settled() -> bool:
        send_outbox_task()  # beat's dispatch: a requeued match goes out again
        over = matches.filter(attempts__gt=3).exists()
        refused = worker.log().count("'not claimed: running'")
        return over or refused >= matches.exclude(status=Match.Status.FAILED).count()

    wait_until(settled, 300, "every match to fail, or to have its last attempt's task refused")
    assert not matches.filter(attempts__gt=3).exists(), list(matches.values_list("pk", "attempts", "error"))

    def all_failed() -> bool:
        reap()
        return not matches.exclude(status=Match.Status.FAILED).exists()

    wait_until(all_failed, 300, "every match to fail on the full disk")
    for match in matches:
        assert match.attempts in (1, 2, 3), (match.pk, match.attempts, match.error)  # 3 allowed
        assert "No space left on device" in match.error, (match.pk, match.error)
    assert "stops taking matches" not in worker.log()  # the database's disk, not this worker's host


def test_a_match_whose_lease_ran_out_on_its_last_attempt_is_left_for_the_reaper_to_fail(
    fault_settings: Any, alice: Any
) -> None:
    from django.db.models.functions import Now

    from tournaments.services import claim_and_read, requeue_expired

    fault_settings.LUDUS_MATCH_ATTEMPTS = 3
    tournament = create_tournament([ensure_builtin("greedy"), ensure_builtin("greedy-2", "greedy")], name="last",
                                   game="evolution", players_per_table=2, seed=4, created_by=alice)
    [match] = start_tournament(tournament, enqueue=False)
    for one_statement in (True, False):
        Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, attempts=3, lease_owner="gone",
                                                 lease_expires=Now())
        assert claim_and_read(match.pk, "late-task", one_statement=one_statement) == []
    assert requeue_expired() == 1
    match.refresh_from_db()
    assert (match.status, match.attempts) == (Match.Status.FAILED, 3)
