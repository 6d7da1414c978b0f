"""A seat's pipes (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox): the lines written to its stdin and
the lines cut from its stdout, no longer than protocol.MAX_LINE, each before a deadline.

`SeatPipes` is the part of SandboxedSeat (seat.py) that does this. A decide waits through the seat's freezer (a
`Watch`: Freezer._watch_until, which looks at the other waiting seats meanwhile); a pipe the bot closed raises
`PipeClosed`, which the seat turns into its death (SeatDied)."""

from __future__ import annotations

import array
import fcntl
import math
import os
import select
import termios
import time
from collections.abc import Callable
from typing import IO, Any

import orjson

from engine import protocol

CHUNK = 1 << 16  # bytes read from a seat's stdout at once
Watch = Callable[[select.poll, float], list[tuple[int, int]]]  # poll until an event or the deadline (Freezer)


def encode_line(message: dict[str, Any]) -> bytes:
    """protocol.encode, by orjson: the same bytes for the plain JSON of views, in a tenth of the time (20 us a
    decide in the standard library). Anything orjson refuses (a key that is not a string, an integer over 64 bits)
    or a line over MAX_LINE goes to protocol.encode, which converts it or words the error. Views never hold NaN,
    which orjson would write as null where protocol.encode refuses it."""
    try:
        data = orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)  # the newline written in, not a copy added
    except TypeError:
        return protocol.encode(message)
    if len(data) > protocol.MAX_LINE + 1:
        return protocol.encode(message)
    return data


class LineBuffer:
    """What a seat wrote to its stdout and is not read yet, cut into lines."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._scanned = 0  # bytes of _data already searched for a newline
        self.discarding = False  # inside a line that was too long: drop bytes up to its newline

    def __bool__(self) -> bool:
        return bool(self._data)

    def add(self, chunk: bytes) -> None:
        self._data += chunk

    def clear(self) -> None:
        self._data.clear()
        self._scanned, self.discarding = 0, False

    def first_line(self) -> bytes | None:
        """The first complete line, left in the buffer (None while there is none)."""
        newline = self._data.find(b"\n")
        return bytes(self._data[:newline]) if newline >= 0 else None

    def take(self) -> bytes | protocol.ProtocolFault | None:
        """Cut one complete line off the buffer, keeping at most MAX_LINE bytes of an unfinished one."""
        newline = self._data.find(b"\n", self._scanned)
        if self.discarding:
            if newline < 0:
                self._data.clear()
                self._scanned = 0
                return None
            del self._data[: newline + 1]
            self._scanned, self.discarding = 0, False
            return self.take()
        if newline >= 0:
            line = bytes(self._data[:newline])
            del self._data[: newline + 1]
            self._scanned = 0
            if len(line) > protocol.MAX_LINE:
                return protocol.ProtocolFault("too_long", f"a line of {len(line)} bytes exceeds {protocol.MAX_LINE}")
            return line
        self._scanned = len(self._data)
        if len(self._data) > protocol.MAX_LINE:
            self._data.clear()
            self._scanned, self.discarding = 0, True
            return protocol.ProtocolFault("too_long", f"a line exceeds {protocol.MAX_LINE} bytes")
        return None


def wait_fd(fd: int, event: int, deadline: float) -> bool:
    """Wait until fd is ready for event (or hung up) or the deadline passes; True when ready."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(math.ceil(remaining * 1000)))


class PipeClosed(Exception):
    """The bot closed a pipe (or every reader of its stdin is gone): what it did, in a died fault's words."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class SeatPipes:
    """A seat process's stdin and stdout, non-blocking once attached, and what it wrote to stdout not read yet."""

    def __init__(self) -> None:
        self.lines = LineBuffer()  # its stdout, not read yet
        self._stdin: IO[bytes] | None = None
        self._stdout: IO[bytes] | None = None
        self._poller: select.poll | None = None  # stdout readable, or stdin's readers gone (_wait_readable)
        self._write_poller: select.poll | None = None  # stdin writable (send, when a decide line fills the pipe)

    def attach(self, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        """The pipes of the process just spawned."""
        for pipe in (stdin, stdout):
            os.set_blocking(pipe.fileno(), False)
        self._stdin, self._stdout = stdin, stdout

    def send(self, data: bytes, deadline: float, watch: Watch | None = None) -> bool:
        """Write all of data before deadline. False on timeout; PipeClosed when the bot closed its stdin.

        With watch (a decide line), a full pipe is waited on as the reply is (Freezer._watch_until): a bot that
        shrinks its stdin pipe and reads a long line late holds the worker here, and the seats that wait unfrozen are
        looked at meanwhile. A pipe that takes the line at once, as nearly always, costs the one write."""
        assert self._stdin is not None
        fd = self._stdin.fileno()
        rest: bytes | memoryview = data  # a view of it only once a write took part of it
        while True:
            try:
                written = os.write(fd, rest)
                if written == len(rest):
                    return True
                rest = memoryview(rest)[written:]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise PipeClosed("closed its stdin") from None
            if watch is None:
                if not wait_fd(fd, select.POLLOUT, deadline):
                    return False
                continue
            if self._write_poller is None:
                self._write_poller = select.poll()
                self._write_poller.register(fd, select.POLLOUT)
            if not watch(self._write_poller, deadline):  # writable, or hung up: the write tells
                return False

    def read_line(self, deadline: float, watch: Watch) -> bytes | protocol.ProtocolFault | None:
        """The next stdout line; a ProtocolFault('too_long') for an overlong one; None at the deadline. PipeClosed
        when the bot closed its stdout, or its stdin meanwhile."""
        assert self._stdout is not None
        fd = self._stdout.fileno()
        lines = self.lines
        while True:
            if lines:  # an empty buffer holds no line: straight to the read
                found = lines.take()
                if found is not None:
                    return found
            try:  # read before any wait: the deciding seat, woken by its decide line, has often replied already
                chunk = os.read(fd, CHUNK)
            except BlockingIOError:
                if not self._wait_readable(fd, deadline, watch):
                    return None
                continue
            if not chunk:
                raise PipeClosed("closed its stdout")
            if not lines and not lines.discarding and chunk.find(b"\n") == len(chunk) - 1:
                return chunk[:-1]  # the usual reply: one whole line alone, never through the buffer
            lines.add(chunk)

    def _wait_readable(self, fd: int, deadline: float, watch: Watch) -> bool:
        """Wait for stdout to be readable (True) or the deadline (False); a stdin closed meanwhile is PipeClosed."""
        assert self._stdin is not None
        if self._poller is None:  # made once for the seat's pipes, not at every wait
            self._poller = select.poll()
            self._poller.register(fd, select.POLLIN)
            self._poller.register(self._stdin.fileno(), 0)  # only POLLERR: every reader of the bot's stdin is gone
        events = watch(self._poller, deadline)
        if not events:
            return False
        for ready, _ in events:
            if ready == fd:
                return True
        raise PipeClosed("closed its stdin")

    def first_line_now(self) -> bytes | None:
        """The first complete line on stdout, read without waiting and left for read_line; None when there is none
        yet (or the buffer is inside an overlong line)."""
        if self._stdout is None or self.lines.discarding:
            return None
        try:
            self.lines.add(os.read(self._stdout.fileno(), CHUNK))  # an end of file is seen again by read_line
        except (BlockingIOError, OSError):
            return None
        return self.lines.first_line()

    def unread(self) -> int:
        """How many bytes written to its stdin the bot has not read yet."""
        assert self._stdin is not None
        waiting = array.array("i", [0])
        fcntl.ioctl(self._stdin.fileno(), termios.FIONREAD, waiting)
        return waiting[0]

    def close_stdin(self) -> None:
        if self._stdin is not None:
            self._poller = self._write_poller = None  # they poll the closed pipe
            self._stdin.close()
