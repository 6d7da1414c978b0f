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
hands it on with its Content-Length; a malformed one is answered 400, another coding 501 and a body over the
largest request the service takes 413, and the connection is closed.

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


def _line(stream: io.BufferedIOBase) -> bytes:
    """One line of the chunked framing, its line end included: a longer one is refused, never read in pieces (its
    rest would be taken for the framing that follows)."""
    line = stream.readline(LINE_MAX)
    if not line.endswith(b"\n"):
        raise MalformedChunks("a line of the chunked framing is too long or cut short")
    return line


def read_chunks(stream: io.BufferedIOBase, cap: int) -> bytes | None:
    """The body a chunked request sends, or None when it is over `cap` bytes. An oversized body is read on, and
    dropped, up to as much again, so that the client reads the refusal rather than a reset connection."""
    body, total = bytearray(), 0
    while True:
        size_field = _line(stream).split(b";", 1)[0].rstrip(b"\r\n \t")  # a chunk extension is ignored
        if not CHUNK_SIZE.fullmatch(size_field):
            raise MalformedChunks(f"bad chunk size {size_field[:20]!r}")
        size = int(size_field, 16)
        if size == 0:
            break
        total += size
        if total > 2 * cap:
            return None  # past what is worth draining: the connection is closed with the rest unread
        chunk = stream.read(size)
        if len(chunk) < size or _line(stream) not in (b"\r\n", b"\n"):
            raise MalformedChunks("a chunk is not as long as its size")
        if total <= cap:
            body += chunk
    for _ in range(TRAILERS_MAX):  # trailer fields, ignored, up to the empty line
        if _line(stream) in (b"\r\n", b"\n"):
            return bytes(body) if total <= cap else None
    raise MalformedChunks("no end to the trailer fields")


class ChunkedBodies(BaseHTTPRequestHandler):
    """A request handler mixin: a chunked body is read whole and handed on with its length. As RFC 9112 (6.1, 6.3)
    has it: only `chunked` alone is decoded; another coding before it is answered 501, and a Transfer-Encoding
    whose last coding is not `chunked` 400; a request with a Content-Length too has its connection closed after the
    answer (it may have been framed otherwise on its way)."""

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        named = self.headers.get_all("Transfer-Encoding")
        if not named:
            return True
        codings = [coding.strip().lower() for value in named for coding in value.split(",")]
        if codings[-1] != "chunked":
            self.send_error(HTTPStatus.BAD_REQUEST, "Transfer-Encoding must end with chunked")  # and closes
            return False
        if codings != ["chunked"]:
            self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Transfer-Encoding {', '.join(codings)}: only chunked")
            return False
        try:
            body = read_chunks(self.rfile, body_cap())
        except MalformedChunks as error:
            self.send_error(HTTPStatus.BAD_REQUEST, f"Malformed chunked body: {error}")
            return False
        if body is None:
            self.send_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"A body over {body_cap()} bytes")
            return False
        if "Content-Length" in self.headers:
            self.close_connection = True
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
        if not issubclass(handler, ChunkedBodies):
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
