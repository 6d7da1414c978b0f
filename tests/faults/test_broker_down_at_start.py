"""The broker is down when an organiser starts a tournament: the request succeeds and nothing is stranded.

The fault: `POST .../start/` with Redis down answered 500, yet the tournament was running with its matches
queued and no messages, for 15 minutes. The match rows are the outbox now: the send after commit fails quietly,
the rows stay unsent, and beat's outbox sender (run here as reap()) sends them once the broker is back.
"""

from __future__ import annotations

from typing import Any

import pytest
from faultkit import check_one_result_per_match, reap, wait_until
from rest_framework.test import APIClient

from tournaments.models import Match
from tournaments.scheduling import create_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]


def test_starting_a_tournament_with_the_broker_down_succeeds_and_runs_once_it_is_back(
    redis_server: Any, worker_pool: Any, builtin_versions: dict[str, Any], alice: Any
) -> None:
    worker_pool.start("a", redis_server.url)
    entrants = [builtin_versions[name] for name in ("greedy", "random", "greedy-2", "random-2")]
    tournament = create_tournament(entrants, name="no-broker", game="evolution", players_per_table=2, seed=4,
                                   created_by=alice)
    alice.is_staff = True
    alice.save()
    client = APIClient()
    client.force_authenticate(alice)
    redis_server.kill()

    response = client.post(f"/api/tournaments/{tournament.pk}/start/")
    assert response.status_code == 200, response.content
    in_tournament = Match.objects.filter(tournament=tournament)
    assert in_tournament.count() == 6
    assert not in_tournament.exclude(status="queued").exists()
    assert not in_tournament.filter(dispatched_at__isnull=False).exists()  # all still in the outbox
    assert reap() == 0  # beat's sender with the broker still down: nothing sent, nothing raised, nothing lost
    assert not in_tournament.filter(dispatched_at__isnull=False).exists()

    redis_server.start()

    def all_finished() -> bool:
        reap()
        return not in_tournament.exclude(status="finished").exists()

    wait_until(all_finished, 300, "every match to run once the broker is back")
    check_one_result_per_match(list(in_tournament))
    assert all(match.attempts == 1 for match in in_tournament)
