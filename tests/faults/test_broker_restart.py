"""The broker (Redis, no persistence) is killed and restarted while matches are queued and running: none is lost.

A restart empties the queue, so the queued matches' messages are gone; beat's outbox sender finds the queued matches
whose message the broker no longer holds and sends them again (services.redispatch_lost). Running matches finish
(their result goes to PostgreSQL, not Redis), or, if their worker loses them, their lease expires and they are run
again.
"""

from __future__ import annotations

from typing import Any

import pytest
from faultkit import check_one_result_per_match, reap, wait_until

from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]


def test_a_broker_restart_loses_no_match_queued_or_running(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any
) -> None:
    fault_settings.LUDUS_REDISPATCH_SECONDS = 1
    for name in ("a", "b"):
        worker_pool.start(name, redis_server.url)
    tournament = create_tournament(slow_versions(4, 0.01), name="restart", game="evolution", players_per_table=2,
                                   seed=8, created_by=alice)
    matches = start_tournament(tournament)  # 6 matches for 2 single-process workers
    in_tournament = Match.objects.filter(tournament=tournament)

    def both_workers_busy() -> bool:
        return in_tournament.filter(status="running").count() == 2 and in_tournament.filter(status="queued").count()

    wait_until(both_workers_busy, 240, "two matches running and others queued")
    queued_before = set(in_tournament.filter(status="queued").values_list("pk", flat=True))
    redis_server.kill()
    redis_server.start()
    # Every queued message went with the old broker (the workers, reconnecting, may already have bound the queue).
    assert redis_server.queued_matches() == 0

    def all_finished() -> bool:
        reap()  # beat: requeues expired leases, finds the lost messages and sends them again
        return not in_tournament.exclude(status="finished").exists()

    wait_until(all_finished, 600, "every match, queued or running at the restart, to finish")
    assert queued_before
    matches = list(in_tournament)
    assert len(matches) == 6
    check_one_result_per_match(matches)
