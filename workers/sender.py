"""Messages sent from a thread of this process's own, in the order given, so the runner does not wait for the broker:
the verification of a result just recorded (docs/architecture.md#replays). A message the broker refuses, or one still
waiting when the process is killed, is lost as a message sent and then lost is: beat's sweep verifies its replay.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable
from queue import SimpleQueue

logger = logging.getLogger(__name__)

EXIT_SECONDS = 5.0  # what a stopping process waits for its last messages


class Sender:
    """Calls send(item) for each item put, in a daemon thread started on the first put (in each forked process)."""

    def __init__(self, send: Callable[[int], None], name: str) -> None:
        self._send, self._name = send, name
        self._lock = threading.Lock()
        self._queue: SimpleQueue[int | threading.Event] | None = None
        self._pid = 0

    def put(self, item: int) -> None:
        """Hand item to the thread: sent after every item put before it."""
        self._started().put(item)

    def flush(self, timeout: float = EXIT_SECONDS) -> bool:
        """Wait until every item put so far is sent (or failed to be); False when timeout came first."""
        with self._lock:
            items = self._queue if self._pid == os.getpid() else None
        if items is None:
            return True
        done = threading.Event()
        items.put(done)
        return done.wait(timeout)

    def _started(self) -> SimpleQueue[int | threading.Event]:
        with self._lock:
            if self._queue is None or self._pid != os.getpid():  # a forked child has the queue, not the thread
                first = self._queue is None
                self._queue, self._pid = SimpleQueue(), os.getpid()
                threading.Thread(target=self._run, args=(self._queue,), name=self._name, daemon=True).start()
                if first:
                    atexit.register(self.flush)
            return self._queue

    def _run(self, items: SimpleQueue[int | threading.Event]) -> None:
        while True:
            item = items.get()
            if isinstance(item, threading.Event):
                item.set()
                continue
            try:
                self._send(item)
            except Exception:
                logger.warning("%s: sending %s failed; beat's sweep catches it", self._name, item, exc_info=True)
