"""A worker killed with SIGKILL in the middle of a match: another worker runs it again, and it counts once.

What happens without the lease: with acks_late the message stays unacknowledged in Redis, and only after the
visibility timeout does a polling worker put it back (kombu checks every ~100 s by default), so a dead worker's match
would wait minutes. `reject_on_worker_lost` helps only when a pool child dies under a live parent, not when the
whole worker (or its machine) dies. The lease decides: no heartbeat for LUDUS_LEASE_SECONDS, and the reaper requeues
the match; a redelivered message for it finds the lease still held, or the match finished, and does nothing.
"""

from __future__ import annotations

import signal
from typing import Any

import pytest
from faultkit import check_one_result_per_match, reap, wait_until

from replays.progress import live_actions
from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]


def test_a_match_whose_worker_was_killed_midway_is_run_again_elsewhere_once(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any
) -> None:
    first = worker_pool.start("first", redis_server.url)
    tournament = create_tournament(slow_versions(2, 0.02), name="killed", game="evolution", players_per_table=2,
                                   seed=3, created_by=alice)
    [match] = start_tournament(tournament)  # sent to the broker on commit

    def playing_on_first() -> bool:
        match.refresh_from_db()
        return match.status == "running" and first.holds(match.lease_owner) and len(live_actions(match)) >= 20

    wait_until(playing_on_first, 240, "the first worker to be in the middle of the match")
    killed_owner = match.lease_owner
    first.signal(signal.SIGKILL)
    first.process.wait(timeout=60)

    second = worker_pool.start("second", redis_server.url)

    def finished() -> bool:
        reap()  # the beat's reaper task, run here at the test's pace
        match.refresh_from_db()
        return match.status == "finished"

    wait_until(finished, 300, "the killed worker's match to be finished by the second worker")
    assert match.attempts == 2
    assert match.lease_owner != killed_owner and second.holds(match.lease_owner)
    check_one_result_per_match([match])
    assert sorted(tournament.ratings.values_list("games", flat=True)) == [1, 1]
    assert Match.objects.filter(tournament=tournament).count() == 1
