"""The proof: a real version test, greedy against greedy_eps50 in Evolution with 3 players, runs to a decision on a
real Celery worker (docs/version-tests.md). Its figures (games and wall time to a decision, the worker-time share
beside a ladder) come from `python -m benchmarks.version_tests`, not from here."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from replays.version_test_measures import advance
from tournaments.builtins import ensure_builtin, system_user
from tournaments.models import Match, VersionTest
from tournaments.version_tests import TestRequest, start_test

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]


def test_greedy_passes_against_greedy_eps50_in_evolution_on_a_real_worker(
    celery_worker_process: Any, wait_until: Callable[..., Any]
) -> None:
    greedy, weak = ensure_builtin("greedy"), ensure_builtin("greedy_eps50")
    test = start_test(system_user(), TestRequest(new=greedy.pk, base=weak.pk, game="evolution", players=3,
                                                 d0=0.0, d1=0.1, batch_deals=4, max_games=400, seed=35))

    def decided() -> bool:
        return advance(test.pk) in (VersionTest.Status.PASSED, VersionTest.Status.FAILED,
                                    VersionTest.Status.CAPPED)  # this loop stands in for beat's task

    wait_until(decided, 900, "the test to reach a decision")
    test.refresh_from_db()
    assert test.status == VersionTest.Status.PASSED, test.results
    assert test.llr >= test.results["bounds"][1] and 0 < test.games_played < test.max_games
    assert test.results["score"]["low"] > 0  # its interval agrees with the verdict
    games = Match.objects.filter(version_test_game__test=test)
    assert not games.filter(rated=True).exists() and games.filter(status=Match.Status.FINISHED).count() == \
        test.games_played
    runners = {match.lease_owner.split(":")[1] for match in games.filter(status=Match.Status.FINISHED)}
    assert str(os.getpid()) not in runners  # the worker played them, not this process
