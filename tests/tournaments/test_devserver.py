"""Django's own server, as the demo and the tests' live server run it, sends each write at once (TCP_NODELAY): on
a kept-alive connection Nagle's algorithm would hold a response's body for the client's delayed acknowledgement."""

from __future__ import annotations

import socket

import pytest
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer

from tournaments.devserver import NoDelayThreadedWSGIServer, NoDelayWSGIServer


@pytest.mark.parametrize("server_class", [NoDelayWSGIServer, NoDelayThreadedWSGIServer, WSGIServer])
def test_each_accepted_connection_sends_its_writes_at_once(server_class: type[WSGIServer]) -> None:
    server = server_class(("127.0.0.1", 0), WSGIRequestHandler)
    try:
        with socket.create_connection(server.server_address[:2]):
            accepted, _ = server.get_request()
            with accepted:
                nodelay = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        server.server_close()
    assert bool(nodelay) is (server_class is not WSGIServer)  # Django's own does not: the reason for ours


def test_the_tests_live_server_is_ours(live_server: object) -> None:
    from django.test.testcases import LiveServerThread

    assert LiveServerThread.server_class is NoDelayThreadedWSGIServer
