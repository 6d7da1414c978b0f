"""PostgreSQL goes away while matches are queued: the messages are retried, not acknowledged away.

The fault: the claim failed after a short retry, the task raised, the late-acknowledged message was
acknowledged anyway, and the match waited 15 minutes for the redispatcher while workers idled. Now the task is
retried with back-off while the database is unreachable, so every match runs within seconds of its return, with no
reaper and no redispatch (the test never runs either).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from faultkit import TcpProxy, check_one_result_per_match, proxied_database_url, wait_until

from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def database_proxy() -> Iterator[TcpProxy]:
    db = connection.settings_dict
    proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
    try:
        yield proxy
    finally:
        proxy.close()


def test_queued_matches_run_within_seconds_of_the_databases_return(
    redis_server: Any, worker_pool: Any, database_proxy: TcpProxy, builtin_versions: dict[str, Any], alice: Any
) -> None:
    worker = worker_pool.start("a", redis_server.url, DATABASE_URL=proxied_database_url(database_proxy))
    database_proxy.cut()  # the outage: the worker's connections drop and new ones are refused
    entrants = [builtin_versions[name] for name in ("greedy", "random", "greedy-2", "random-2")]
    tournament = create_tournament(entrants, name="outage", game="evolution", players_per_table=2, seed=3,
                                   created_by=alice)
    start_tournament(tournament)  # 6 matches, sent on commit; the worker cannot claim them
    wait_until(lambda: worker.log().count("the database is unreachable; retrying") >= 2, 120,
               "the worker to retry its task while the database is down")
    in_tournament = Match.objects.filter(tournament=tournament)
    assert not in_tournament.exclude(status="queued").exists()

    database_proxy.restore()  # (benchmarks/recovery.py measures how soon the first match runs)
    wait_until(lambda: not in_tournament.exclude(status="finished").exists(), 300, "every match to finish")
    check_one_result_per_match(list(in_tournament))
