"""A seat's stderr log: drained by a thread, capped, keeping its head and its tail.

The head says what went wrong first (a traceback at start-up, the bot's own banner); the tail says how it ended.
A flood in between is dropped and counted. The sandbox's own notes (`[ludus] ...`) are kept apart and never dropped.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

_CHUNK = 1 << 16
NOTES_MAX = 32  # the sandbox writes a handful at most; a cap all the same


@dataclass
class StderrLog:
    """Up to cap bytes of a stream: the first half as it came, the last half as a sliding window."""

    cap: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    notes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def drain(self, fd: int) -> None:
        while chunk := _read_retrying(fd):
            with self.lock:
                self.add(chunk)

    def add(self, chunk: bytes) -> None:
        room = max(0, self.cap // 2 - len(self.head))
        self.head += chunk[:room]
        self.tail += chunk[room:]
        excess = len(self.tail) - (self.cap - self.cap // 2)
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        with self.lock:
            middle = f"\n[truncated: {self.dropped} bytes in the middle]\n" if self.dropped else ""
            body = bytes(self.head).decode("utf-8", "replace") + middle + bytes(self.tail).decode("utf-8", "replace")
            notes = "".join(f"[ludus] {note}\n" for note in self.notes)
        return body + ("\n" if notes and body and not body.endswith("\n") else "") + notes

    def reset(self) -> None:
        """Start afresh: a warm seat's next match gets a log of its own."""
        with self.lock:
            self.head.clear()
            self.tail.clear()
            self.dropped = 0
            self.notes.clear()

    def note(self, line: str) -> None:
        with self.lock:
            if len(self.notes) < NOTES_MAX:
                self.notes.append(line)


def _read_retrying(fd: int) -> bytes:
    try:
        return os.read(fd, _CHUNK)
    except OSError:
        return b""
