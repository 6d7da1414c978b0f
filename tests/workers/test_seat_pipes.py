"""A seat's stdout cut into lines (workers/sandbox/pipes.py): the reply read before any wait when it is there already,
and every other shape of output read as the buffer reads it."""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Iterator

import pytest

from engine import protocol
from workers.sandbox.pipes import SeatPipes


def _no_wait(poller: select.poll, deadline: float) -> list[tuple[int, int]]:
    return poller.poll(0)


@pytest.fixture
def pipes() -> Iterator[tuple[SeatPipes, int]]:
    """SeatPipes attached to two real pipes; the bot's end of its stdout, to write to."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    seat = SeatPipes()
    seat.attach(os.fdopen(stdin_write, "wb"), os.fdopen(stdout_read, "rb"))
    yield seat, stdout_write
    for fd in (stdin_read, stdout_write):
        os.close(fd)


def _read(seat: SeatPipes) -> bytes | protocol.ProtocolFault | None:
    return seat.read_line(time.monotonic(), _no_wait)


def test_it_reads_a_reply_written_before_it_looks(pipes: tuple[SeatPipes, int]) -> None:
    seat, bot = pipes
    os.write(bot, b'{"seq":1,"choice":0}\n')
    assert _read(seat) == b'{"seq":1,"choice":0}'
    assert _read(seat) is None  # nothing more: the deadline has passed


def test_it_cuts_lines_written_together_or_in_pieces(pipes: tuple[SeatPipes, int]) -> None:
    seat, bot = pipes
    os.write(bot, b'{"type":"hello"}\n{"seq":1,')
    assert _read(seat) == b'{"type":"hello"}'
    assert _read(seat) is None  # half a line is no line
    os.write(bot, b'"choice":2}\n')
    assert _read(seat) == b'{"seq":1,"choice":2}'


def test_the_end_of_an_overlong_line_is_no_line_of_its_own(pipes: tuple[SeatPipes, int]) -> None:
    seat, bot = pipes
    seat.lines.add(b"x" * (protocol.MAX_LINE + 1))
    fault = _read(seat)
    assert isinstance(fault, protocol.ProtocolFault) and fault.code == "too_long"
    os.write(bot, b'xxx\n')  # the rest of the overlong line, alone in its read
    assert _read(seat) is None
    os.write(bot, b'{"seq":3,"choice":1}\n')
    assert _read(seat) == b'{"seq":3,"choice":1}'


def test_a_line_longer_than_the_pipe_is_written_whole_and_once_as_the_bot_reads_it() -> None:
    """The first write takes what the pipe holds; the rest goes after waits, each byte once, in order."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    seat = SeatPipes()
    seat.attach(os.fdopen(stdin_write, "wb"), os.fdopen(stdout_read, "rb"))
    line = b"".join(b"%07d," % i for i in range(40_000)) + b"\n"  # 320 kB: five times a pipe's default 64 KiB
    got = bytearray()

    def bot() -> None:
        while len(got) < len(line) and (chunk := os.read(stdin_read, 1 << 16)):
            got.extend(chunk)
            time.sleep(0.001)  # a slow reader: the worker finds the pipe full, and waits

    reader = threading.Thread(target=bot)
    reader.start()
    try:
        assert seat.send(line, time.monotonic() + 30)
    finally:
        reader.join()
        for fd in (stdin_read, stdout_write):
            os.close(fd)
    assert bytes(got) == line
