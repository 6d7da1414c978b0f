"""Django's own HTTP server (the demo's runserver, and the tests' live server), with two fixes.

Nagle's delay. It answers in more than one write (the headers, then the body). On a connection kept alive, as
browsers and HTTP clients keep them, Nagle's algorithm holds the second write until the client acknowledges the
first, and the client delays that acknowledgement: about 40 ms a request on Linux (a JSON endpoint measured 44-48 ms
a request on one connection against 3 ms on new ones). TCP_NODELAY on each accepted connection sends every write at
once.

Chunked request bodies. Django's handler reads a body by its Content-Length only. A body sent in chunks
(Transfer-Encoding: chunked, as an HTTP client sends a body of unknown length) stayed unread on a kept-alive
connection and was read as the next request, answered with a bare HTTP/0.9 error page that the client took for the
answer to its next request. The handler here reads such a body whole, as uvicorn (the production server) does, and
hands it on with its Content-Length; a malformed one is answered 400 and one over the largest request the service
takes 413, and the connection is closed.

Not a library: no package swaps runserver's server class, which is one attribute here (Command.server_cls), and the
standard library decodes chunks only in a response (h11 would need to parse the whole connection).
"""

from __future__ import annotations

import contextlib
import io
import re
import socket
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any

from django.conf import settings
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIServer

from tournaments import upload_rule

CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,15}")  # hex digits only: int(..., 16) would also take 0x, signs and _
LINE_MAX = 1024  # a chunk's size line, or a trailer's
TRAILERS_MAX = 32


class MalformedChunks(ValueError):
    pass


def body_cap() -> int:
    """The largest request body the service takes: an upload, or a form or JSON body Django will parse."""
    return max(upload_rule.request_cap(), int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0))


def read_chunks(stream: io.BufferedIOBase, cap: int) -> bytes | None:
    """The body a chunked request sends, or None once it is over `cap` bytes (the rest left unread)."""
    body = bytearray()
    while True:
        size_field = stream.readline(LINE_MAX).split(b";", 1)[0].strip()  # a chunk extension is ignored
        if not CHUNK_SIZE.fullmatch(size_field):
            raise MalformedChunks(f"bad chunk size {size_field[:20]!r}")
        size = int(size_field, 16)
        if size == 0:
            break
        if len(body) + size > cap:
            return None
        chunk = stream.read(size)
        if len(chunk) < size or stream.readline(3) not in (b"\r\n", b"\n"):
            raise MalformedChunks("a chunk is not as long as its size")
        body += chunk
    for _ in range(TRAILERS_MAX):  # trailer fields, ignored, up to the empty line
        if stream.readline(LINE_MAX) in (b"\r\n", b"\n"):
            return bytes(body)
    raise MalformedChunks("no end to the trailer fields")


class ChunkedBodies(BaseHTTPRequestHandler):
    """A request handler mixin: a chunked body is read whole and handed on with its length."""

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if "chunked" not in self.headers.get("Transfer-Encoding", "").lower():
            return True
        try:
            body = read_chunks(self.rfile, body_cap())
        except MalformedChunks as error:
            self.send_error(HTTPStatus.BAD_REQUEST, f"Malformed chunked body: {error}")  # closes the connection
            return False
        if body is None:
            self.send_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"A body over {body_cap()} bytes")
            return False
        del self.headers["Transfer-Encoding"], self.headers["Content-Length"]  # the length the chunks had wins
        self.headers["Content-Length"] = str(len(body))
        self.connection_file, self.rfile = self.rfile, io.BytesIO(body)  # what the WSGI handler reads the body from
        return True

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        finally:
            self.rfile = self.__dict__.pop("connection_file", self.rfile)


class NoDelay:
    """A socketserver mixin: every accepted connection sends its writes at once, and its handler reads chunked
    bodies (ChunkedBodies)."""

    def __init__(self, address: Any, handler: type, *args: Any, **kwargs: Any) -> None:
        handler = type(handler.__name__, (ChunkedBodies, handler), {})
        super().__init__(address, handler, *args, **kwargs)  # type: ignore[call-arg]

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()  # type: ignore[misc]
        with contextlib.suppress(OSError):  # a Unix socket has no TCP options
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


class NoDelayWSGIServer(NoDelay, WSGIServer):
    """runserver's server (it adds the threads itself)."""


class NoDelayThreadedWSGIServer(NoDelay, ThreadedWSGIServer):
    """The live server's (django.test.testcases.LiveServerThread.server_class)."""
