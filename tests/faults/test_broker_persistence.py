"""Redis as docker-compose.yml runs it (append-only) is killed and restarted with matches queued: none waits.

Without persistence the queued messages die with Redis and the reaper re-sends the matches only after
LUDUS_REDISPATCH_SECONDS (test_broker_restart.py). With the compose file's flags the queue comes back with Redis,
so a worker started afterwards runs every match, and no reaper runs in this test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from faultkit import RedisServer, check_one_result_per_match, use_broker, wait_until
from testkit import ROOT

from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]


def compose_redis_flags() -> tuple[str, ...]:
    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["redis"]["command"]
    assert command[0] == "redis-server"
    return tuple(command[1:])


def test_queued_matches_survive_a_killed_redis_with_the_compose_flags(
    tmp_path: Path, worker_pool: Any, builtin_versions: dict[str, Any], alice: Any
) -> None:
    server = RedisServer(tmp_path, compose_redis_flags())
    server.start()
    restore_broker = use_broker(server.url)
    try:
        entrants = [builtin_versions[name] for name in ("greedy", "random", "greedy-2")]
        tournament = create_tournament(entrants, name="persisted", game="evolution", players_per_table=2, seed=6,
                                       created_by=alice)
        start_tournament(tournament)  # 3 matches, sent on commit; no worker runs yet
        wait_until(lambda: server.queued_matches() == 3, 30, "three queued messages")
        server.kill()  # SIGKILL: no shutdown save
        server.start()
        assert server.queued_matches() == 3

        worker_pool.start("after-restart", server.url)
        in_tournament = Match.objects.filter(tournament=tournament)
        wait_until(lambda: not in_tournament.exclude(status="finished").exists(), 300, "every match to finish")
        check_one_result_per_match(list(in_tournament))
        assert all(match.attempts == 1 for match in in_tournament)
    finally:
        restore_broker()
        server.kill()
