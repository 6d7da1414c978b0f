"""Open feeds cannot starve the site: the real server (gunicorn with uvicorn workers, config/asgi.py), 50 live
feeds held open, and the pages and the API keep answering; the caps on open feeds answer 429 naming the limit.

The latency figure (a page's p95 under 50 open feeds against its idle p95) is measured by benchmarks/feeds.py, side
by side with the old server; here the deadline of each request decides.
"""

from __future__ import annotations

import http.client
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from apiworld import World, make_world
from liveserver import start_server
from testkit import ROOT, stop_process, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
FEEDS = 50
REQUEST_TIMEOUT_S = 30


class Server:
    def __init__(self, port: int, world: World) -> None:
        self.port, self.world = port, world

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S)

    def get(self, path: str, token: str | None = None) -> tuple[int, bytes]:
        connection = self.connect()
        try:
            connection.request("GET", path, headers=_headers(token))
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def open_feed(self, path: str, token: str | None = None) -> tuple[http.client.HTTPConnection, Any]:
        """A feed request whose connection stays open: its status, and its first line read."""
        connection = self.connect()
        connection.request("GET", path, headers=_headers(token))
        response = connection.getresponse()
        if response.status == 200:
            assert response.read1(), f"{path}: no first line"
        return connection, response


def _headers(token: str | None) -> dict[str, str]:
    return {"Host": "127.0.0.1"} | ({"Authorization": f"Token {token}"} if token else {})


@pytest.fixture
def server(request: Any, django_user_model: Any, celery_broker_url: str, tmp_path: Any) -> Iterator[Server]:
    world = make_world(django_user_model)
    caps = getattr(request, "param", {"LUDUS_FEED_MAX_PER_CLIENT": str(FEEDS)})  # one test client opens them all
    process, port, log = start_server(tmp_path, celery_broker_url, **caps)
    try:
        yield Server(port, world)
    finally:
        stop_process(process)
        log.close()


def test_fifty_open_feeds_leave_pages_and_the_api_answering(server: Server) -> None:
    world = server.world
    paths = [f"/api/matches/{world.running.pk}/feed/", f"/api/ladders/{world.ladder.pk}/feed/"] * (FEEDS // 2)
    feeds = [server.open_feed(path) for path in paths]
    assert [response.status for _, response in feeds] == [200] * FEEDS
    pages = ["/", f"/ladders/{world.ladder.pk}/", "/matches/", "/api/matches/", f"/api/matches/{world.running.pk}/",
             f"/api/matches/{world.finished.pk}/frames/", "/static/ludus/site.css", "/healthz"]
    answers = [server.get(path)[0] for _ in range(5) for path in pages]
    assert answers == [200] * len(answers)
    assert not any(response.isclosed() for _, response in feeds), "a feed closed while the pages were read"
    for connection, _ in feeds:
        connection.close()


def test_the_compose_web_healthcheck_passes_against_the_server(server: Server) -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = compose["services"]["web"]["healthcheck"]["test"]
    assert command[0] == "CMD" and any("8000/healthz" in part for part in command), command
    argv = [sys.executable if part == "python" else part.replace(":8000/", f":{server.port}/") for part in command[1:]]
    assert subprocess.run(argv, timeout=60).returncode == 0


@pytest.mark.parametrize("server", [{"LUDUS_FEED_MAX_PER_CLIENT": "2", "LUDUS_FEED_MAX_OPEN": "3"}], indirect=True)
def test_it_caps_open_feeds_per_client_and_in_all_with_a_clear_429(server: Server) -> None:
    world = server.world
    feed = f"/api/matches/{world.running.pk}/feed/"
    mine = [server.open_feed(feed) for _ in range(2)]
    assert [response.status for _, response in mine] == [200, 200]
    _, third = server.open_feed(feed)
    assert third.status == 429 and b"LUDUS_FEED_MAX_PER_CLIENT" in third.read()
    _, theirs = server.open_feed(feed, world.tokens["organiser"])  # another client: the site's third feed
    assert theirs.status == 200
    _, full = server.open_feed(feed, world.tokens["owner"])
    assert full.status == 429 and b"LUDUS_FEED_MAX_OPEN" in full.read()
    mine[0][0].close()  # a feed that closes gives its slots back
    wait_until(lambda: server.open_feed(feed)[1].status == 200, 30, "the closed feed's slot to come back")
