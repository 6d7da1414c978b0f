"""Django's own server, as the demo and the tests' live server run it: it sends each write at once (TCP_NODELAY: on
a kept-alive connection Nagle's algorithm would hold a response's body for the client's delayed acknowledgement), and
it reads a chunked request body whole, as the production server does, instead of taking its chunks for the next
request."""

from __future__ import annotations

import http.client
import io
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer

from tournaments import upload_rule
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


def serving(server_class: type[WSGIServer]) -> Iterator[WSGIServer]:
    """The server on a free port in a thread, answering every request with the body it read (by its
    Content-Length, as Django's handler hands it on)."""

    def echo(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    server = server_class(("127.0.0.1", 0), WSGIRequestHandler)
    server.set_app(echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


class Unclosed(io.BytesIO):
    def close(self) -> None:  # http.client closes an answer's file once it is read; the next answer is in it too
        pass


def exchange(server: WSGIServer, raw: bytes) -> list[tuple[int, bytes]]:
    """Sends raw bytes on one connection, reads until the server closes it, and parses the answers one by one."""
    with socket.create_connection(server.server_address[:2], timeout=10) as connection:
        connection.sendall(raw)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    stream = Unclosed(received)

    class Received:  # http.client reads each answer from the socket's file: here one stream for all of them
        def makefile(self, *args: Any) -> io.BytesIO:
            return stream

    answers = []
    while stream.tell() < len(received):
        response = http.client.HTTPResponse(Received())  # type: ignore[arg-type]
        response.begin()  # raises BadStatusLine on an answer without a status line
        answers.append((response.status, response.read()))
    return answers


@pytest.fixture
def server() -> Iterator[WSGIServer]:
    """The threaded server, which keeps connections alive (the demo's runserver adds the threads to its own)."""
    yield from serving(NoDelayThreadedWSGIServer)


def chunked(transfer_encoding: bytes = b"Transfer-Encoding: chunked\r\n") -> bytes:
    return b"PATCH / HTTP/1.1\r\nHost: x\r\n" + transfer_encoding + b"\r\n"


CHUNKED = chunked()
NEXT = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
BODY = b"4;ext=1\r\nabcd\r\nA ; e=\"v\"\r\nbank_ms=01\r\n0\r\nTrailer: yes\r\n\r\n"


def test_a_chunked_body_reaches_the_view_whole_and_the_next_request_on_the_connection_is_answered(
        server: WSGIServer) -> None:
    # Django's handler reads Content-Length bytes only: the chunks stayed on the kept-alive connection and were read
    # as the next request, answered with a bare HTTP/0.9 error page that a client took for the next answer.
    assert exchange(server, CHUNKED + BODY + NEXT) == [(200, b"abcdbank_ms=01"), (200, b"")]
    assert exchange(server, CHUNKED + b"0\r\n\r\n" + NEXT) == [(200, b""), (200, b"")]
    assert exchange(server, chunked(b"transfer-encoding: Chunked\r\n") + BODY + NEXT) == [
        (200, b"abcdbank_ms=01"), (200, b"")]


def test_a_chunked_request_that_says_a_content_length_too_is_answered_and_its_connection_closed(
        server: WSGIServer) -> None:
    # RFC 9112 6.3: the chunks frame it; on its way it may have been framed by the length, so the connection ends.
    assert exchange(server, chunked(b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n") + BODY + NEXT) == [
        (200, b"abcdbank_ms=01")]


@pytest.mark.parametrize(("transfer_encoding", "status"), [
    (b"Transfer-Encoding: gzip, chunked\r\n", 501),
    (b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", 501),  # two lines are one list
    (b"Transfer-Encoding: chunked, gzip\r\n", 400),
    (b"Transfer-Encoding: notchunked\r\n", 400),
    (b"Transfer-Encoding: gzip\r\n", 400),
])
def test_a_transfer_coding_other_than_chunked_alone_is_refused_and_its_connection_closed(
        server: WSGIServer, transfer_encoding: bytes, status: int) -> None:
    answers = exchange(server, chunked(transfer_encoding) + BODY + NEXT)
    assert [answer for answer, _ in answers] == [status], answers


@pytest.mark.parametrize("body", [
    b"zz\r\nab\r\n0\r\n\r\n", b"0x2\r\nab\r\n0\r\n\r\n", b"-2\r\nab\r\n0\r\n\r\n", b" 2\r\nab\r\n0\r\n\r\n",
    b"2\r\nabcd\r\n0\r\n\r\n", b"", b"1" * 100 + b"\r\n",
    b"3;" + b"x" * 1022 + b"abc\r\n000\r\n0\r\n\r\n",  # an extension past the line limit, never read in pieces
    b"3\r\nabc\r\n0\r\nX: " + b"a" * 1021 + b"\r\n\r\n",  # so a trailer line
])
def test_a_malformed_chunked_body_is_refused_and_its_connection_closed(server: WSGIServer, body: bytes) -> None:
    answers = exchange(server, CHUNKED + body + NEXT)
    assert [status for status, _ in answers] == [400], answers


def test_a_chunked_body_over_the_largest_request_the_service_takes_is_refused(
        server: WSGIServer, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    settings.LUDUS_UPLOAD_MAX_BYTES = 10 - upload_rule.SLACK
    assert exchange(server, CHUNKED + b"6\r\nabcdef\r\n5\r\nghijk\r\n0\r\n\r\n" + NEXT)[0][0] == 413
    assert exchange(server, CHUNKED + b"6\r\nabcdef\r\n4\r\nghij\r\n0\r\n\r\n" + NEXT) == [
        (200, b"abcdefghij"), (200, b"")]


def test_a_server_made_again_from_a_servers_handler_wraps_it_once() -> None:
    first = NoDelayThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
    second = NoDelayThreadedWSGIServer(("127.0.0.1", 0), first.RequestHandlerClass)
    try:
        assert second.RequestHandlerClass is first.RequestHandlerClass
    finally:
        first.server_close()
        second.server_close()
