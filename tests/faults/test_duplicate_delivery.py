"""The broker delivers the same message twice (same task id), to two workers at once: one result."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from faultkit import check_one_result_per_match, wait_until

from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]


def test_the_same_message_delivered_twice_to_two_workers_keeps_one_result(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any
) -> None:
    from workers.tasks import run_match_task

    workers = [worker_pool.start(name, redis_server.url) for name in ("left", "right")]
    tournament = create_tournament(slow_versions(2, 0.005), name="twice", game="evolution", players_per_table=2,
                                   seed=5, created_by=alice)
    [match] = start_tournament(tournament, enqueue=False)
    task_id = str(uuid.uuid4())
    for _ in range(2):  # one message published twice, as a broker redelivery would
        run_match_task.apply_async(args=[match.pk], task_id=task_id)
    run_match_task.apply_async(args=[match.pk])  # and a third copy with an id of its own

    done = re.compile(rf"Task workers\.run_match\[{task_id}\] succeeded in [\d.]+s: '([^']*)'")

    def both_copies_handled() -> list[str]:
        outcomes = [outcome for worker in workers for outcome in done.findall(worker.log())]
        return outcomes if len(outcomes) == 2 else []

    outcomes = wait_until(both_copies_handled, 300, "both deliveries of the message to be handled")
    assert outcomes.count("finished") == 1, outcomes
    match.refresh_from_db()
    assert match.attempts == 1
    check_one_result_per_match([match])
    assert sorted(tournament.ratings.values_list("games", flat=True)) == [1, 1]
