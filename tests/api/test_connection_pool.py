"""The web server's database connections stay within their bound under load: gunicorn with uvicorn workers (each
request in a thread of its own), 32 concurrent clients on pages, the API and the schema, and at no moment more than
LUDUS_DB_POOL_SIZE connections per web process, nothing refused. Even with DATABASE_CONN_MAX_AGE=60 in the
environment, which under ASGI kept a connection per finished request's thread until PostgreSQL refused everyone."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from apiworld import World, make_world
from liveserver import request, start_server
from testkit import database_url, stop_process

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
WORKERS = 2
POOL = 3
CLIENTS = 32
ROUNDS = 8


@pytest.fixture
def server(django_user_model: Any, celery_broker_url: str, tmp_path: Any) -> Iterator[tuple[int, World]]:
    world = make_world(django_user_model)
    env = {"LUDUS_DB_POOL_SIZE": str(POOL), "DATABASE_CONN_MAX_AGE": "60"}
    process, port, log = start_server(tmp_path, celery_broker_url, workers=WORKERS, **env)
    try:
        yield port, world
    finally:
        stop_process(process)
        log.close()


class ConnectionCount:
    """The most connections to the test database that others than this sampler held, sampled until stopped."""

    def __init__(self) -> None:
        self.most, self.stop, self.url = 0, threading.Event(), database_url()
        self.thread = threading.Thread(target=self.sample)

    def sample(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as db:
            while not self.stop.is_set():
                row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                 "AND pid <> pg_backend_pid()").fetchone()
                self.most = max(self.most, int(row[0]) if row else 0)
                self.stop.wait(0.005)  # the sampling interval (the load's end stops it)


def test_32_clients_stay_within_the_pool_and_get_every_answer(server: tuple[int, World]) -> None:
    port, world = server
    paths = ["/api/matches/", f"/api/ladders/{world.ladder.pk}/standings/", "/api/schema/", "/matches/",
             f"/api/tournaments/{world.tournament.pk}/", "/"] * (CLIENTS * ROUNDS // 6)
    count = ConnectionCount()
    count.thread.start()
    try:
        with ThreadPoolExecutor(CLIENTS) as pool:
            answers = list(pool.map(lambda path: (path, request(port, "GET", path)[0]), paths))
    finally:
        count.stop.set()
        count.thread.join()
    assert [answer for answer in answers if answer[1] != 200] == []
    own = 1  # this test's own connection (pytest-django's)
    assert 0 < count.most - own <= WORKERS * POOL, f"{count.most - own} server connections, bound {WORKERS * POOL}"
