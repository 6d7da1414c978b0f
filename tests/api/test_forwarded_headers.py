"""A client cannot choose its own address: against the real server (gunicorn with uvicorn workers, as the README runs
it), a client on the host that sends a new X-Forwarded-For with each request is still one address to the login
lockout (django-axes) and to the cap on open feeds. Only LUDUS_TRUSTED_PROXIES' addresses may name the client."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from typing import Any

import pytest
from apiworld import World, make_world
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from liveserver import REQUEST_TIMEOUT_S, request, start_server
from testkit import stop_process

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
PASSWORD = "correct horse battery staple"
LIMIT = 3


def forged(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"198.51.100.{n}"}


@pytest.fixture
def server(request: Any, django_user_model: Any, celery_broker_url: str, tmp_path: Any) -> Iterator[tuple[int, World]]:
    world = make_world(django_user_model)
    # The server's own hasher (this process hashes with MD5: tests/conftest.py), at few rounds: it only has to verify.
    hashed = PBKDF2PasswordHasher().encode(PASSWORD, "saltsaltsalt", iterations=1000)
    django_user_model.objects.create(username="carol", password=hashed)
    env = {"LUDUS_LOGIN_FAILURES": str(LIMIT), "LUDUS_FEED_MAX_PER_CLIENT": "2", **getattr(request, "param", {})}
    process, port, log = start_server(tmp_path, celery_broker_url, **env)
    try:
        yield port, world
    finally:
        stop_process(process)
        log.close()


def log_in(port: int, password: str, n: int) -> int:
    return request(port, "POST", "/api/auth/token/", {"username": "carol", "password": password}, forged(n))[0]


def open_feed(port: int, path: str, n: int) -> tuple[http.client.HTTPConnection, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    connection.request("GET", path, headers={"Host": "127.0.0.1", **forged(n)})
    response = connection.getresponse()
    if response.status == 200:
        assert response.read1(), f"{path}: no first line"
    return connection, response.status


def test_a_new_forwarded_address_per_guess_does_not_escape_the_login_lockout(server: tuple[int, World]) -> None:
    port, _ = server
    codes = [log_in(port, "wrong", n) for n in range(LIMIT)]
    assert codes[-1] == 429, codes
    assert log_in(port, PASSWORD, 200) == 429, "the right password worked from a forged address after a lockout"


def test_a_new_forwarded_address_per_feed_does_not_escape_the_per_client_cap(server: tuple[int, World]) -> None:
    port, world = server
    feed = f"/api/matches/{world.running.pk}/feed/"
    feeds = [open_feed(port, feed, n) for n in range(3)]
    try:
        assert [status for _, status in feeds] == [200, 200, 429]
    finally:
        for connection, _ in feeds:
            connection.close()


@pytest.mark.parametrize("server", [{"LUDUS_TRUSTED_PROXIES": "127.0.0.1"}], indirect=True)
def test_a_trusted_proxy_names_the_client(server: tuple[int, World]) -> None:
    port, world = server
    feed = f"/api/matches/{world.running.pk}/feed/"
    feeds = [open_feed(port, feed, n) for n in range(3)]  # three clients behind the proxy, two feeds each at most
    try:
        assert [status for _, status in feeds] == [200, 200, 200]
        assert [log_in(port, "wrong", 7) for _ in range(LIMIT)][-1] == 429
        assert log_in(port, PASSWORD, 8) == 200, "a lockout of one client behind the proxy locked out another"
    finally:
        for connection, _ in feeds:
            connection.close()

