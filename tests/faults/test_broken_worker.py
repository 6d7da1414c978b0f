"""One worker with a broken host fails fast; it stops taking matches and costs the tournament no game.

The fault: a worker whose temporary directory was unusable failed each match in milliseconds, so it took
most messages and all three attempts of each; 28 of 30 matches failed and the tournament finished on 2 games. Now
the worker stops consuming after LUDUS_WORKER_FAILURE_LIMIT infrastructure failures in a row, says why (log, health
check), and gives back the attempts it cost: with one attempt per match (the harshest setting) every match still
finishes, rated, on the healthy worker.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from faultkit import check_one_result_per_match, reap, wait_until

from tournaments.models import Match, Tournament
from tournaments.scheduling import create_tournament, start_tournament
from workers import health

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]

ENV = {"LUDUS_MATCH_ATTEMPTS": "1", "LUDUS_RETRY_SECONDS": "1", "LUDUS_WORKER_FAILURE_LIMIT": "3"}


def test_a_fast_failing_worker_stops_taking_matches_and_costs_no_game(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any, tmp_path: Path
) -> None:
    fault_settings.LUDUS_MATCH_ATTEMPTS, fault_settings.LUDUS_RETRY_SECONDS = 1, 1
    broken_tmp = tmp_path / "broken-tmp"
    broken_tmp.mkdir()
    broken = worker_pool.start("broken", redis_server.url, TMPDIR=str(broken_tmp), **ENV)
    node = f"fault-broken-{os.getpid()}@{socket.gethostname()}"  # the name WorkerPool gives it
    shutil.rmtree(broken_tmp)  # its temp space is gone: each sandboxed seat fails to start, in milliseconds
    broken_tmp.write_text("not a directory\n")
    try:
        tournament = create_tournament(slow_versions(4, 0.0), name="broken", game="evolution", players_per_table=2,
                                       seed=5, created_by=alice)
        start_tournament(tournament)  # 6 matches, all going to the broken worker while it is the only one
        wait_until(lambda: "stops taking matches" in broken.log(), 180, "the broken worker to stop itself")
        assert health.check(node) == 1
        good = worker_pool.start("good", redis_server.url, **ENV)
        in_tournament = Match.objects.filter(tournament=tournament)

        def all_finished() -> bool:
            reap()  # beat: sends the retries whose back-off is over
            return not in_tournament.exclude(status="finished").exists()

        wait_until(all_finished, 600, "every match to finish on the healthy worker")
        matches = list(in_tournament)
        check_one_result_per_match(matches)
        assert all(good.holds(match.lease_owner) for match in matches)  # none after the broken one stopped
        assert Tournament.objects.get(pk=tournament.pk).state == "finished"
        assert "infrastructure failures in a row" in broken.log()
    finally:
        health.marker(node).unlink(missing_ok=True)
