"""PostgreSQL cuts the workers' connections again and again while matches play and results are written.

The runner reconnects and repeats its compare-and-set writes; a write cut halfway rolls back whole. Every match
ends with exactly one replay, all its seats and one rating update per seat.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from faultkit import check_one_result_per_match, reap, wait_until

from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]

CUT = "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
RECOVERED = ("database connection lost; reconnecting", "saving the progress of match", "renewing the lease of match")


def cut_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(CUT, [connection.settings_dict["NAME"]])
        return int(cursor.fetchone()[0])


def test_cut_database_connections_never_write_a_result_twice_or_by_half(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any
) -> None:
    fault_settings.LUDUS_MATCH_ATTEMPTS = 50  # a cut may cost an attempt (a requeue); it must never cost the match
    workers = [worker_pool.start(name, redis_server.url, LUDUS_MATCH_ATTEMPTS="50") for name in ("a", "b")]
    tournament = create_tournament(slow_versions(4, 0.002), name="cut", game="evolution", players_per_table=2,
                                   seed=6, created_by=alice)
    matches = start_tournament(tournament)  # C(4,2) = 6 matches
    tournament_matches = Match.objects.filter(tournament=tournament)

    # Cut every worker connection at each poll while a match runs (so cuts land in play, in heartbeats and in
    # result writes), until half of the matches are done; then let the rest finish undisturbed.
    cuts = 0

    def half_done_under_cuts() -> bool:
        nonlocal cuts
        if tournament_matches.filter(status="running").exists():
            cuts += cut_connections()
        return tournament_matches.filter(status="finished").count() >= len(matches) // 2

    wait_until(half_done_under_cuts, 600, "half of the matches to finish while connections are cut", poll_s=0.3)

    def all_done() -> bool:
        reap()
        return not tournament_matches.exclude(status="finished").exists()

    wait_until(all_done, 600, "every match to finish after the cuts")
    assert cuts > 0
    assert any(message in worker.log() for worker in workers for message in RECOVERED)
    check_one_result_per_match(list(tournament_matches))
