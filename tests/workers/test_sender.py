"""The runner hands a recorded result's verification to a thread of its own and does not wait for the broker
(workers/sender.py, docs/architecture.md#replays): the messages go out in order, a flush waits for them, a failed
send costs that message alone (beat's sweep verifies its replay), and a forked process sends from a thread of its
own."""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest
from testkit import clear_queues, queue_names

from workers.sender import Sender


def test_it_sends_every_item_in_order_and_a_flush_waits_for_them() -> None:
    sent: list[int] = []
    sender = Sender(sent.append, "test sender")
    for item in range(500):
        sender.put(item)
    assert sender.flush(30)
    assert sent == list(range(500))


def test_a_failed_send_is_logged_and_the_next_ones_still_go(caplog: pytest.LogCaptureFixture) -> None:
    sent: list[int] = []

    def send(item: int) -> None:
        if item == 2:
            raise ConnectionError("the broker refused it")
        sent.append(item)

    sender = Sender(send, "test sender")
    with caplog.at_level(logging.WARNING, logger="workers.sender"):
        for item in (1, 2, 3):
            sender.put(item)
        assert sender.flush(30)
    assert sent == [1, 3]
    assert "test sender: sending 2 failed; beat's sweep catches it" in caplog.text


def test_a_flush_with_nothing_sent_returns_at_once() -> None:
    assert Sender(lambda item: None, "test sender").flush(0)


def test_a_forked_process_sends_from_a_thread_of_its_own() -> None:
    read, write = os.pipe()
    sender = Sender(lambda item: os.write(write, f"{os.getpid()} {item}\n".encode()), "test sender")
    sender.put(1)
    assert sender.flush(30)
    child = os.fork()
    if child == 0:  # the parent's thread is not here: a put must start this process's own
        try:
            sender.put(2)
            os._exit(0 if sender.flush(30) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(child, 0)
    os.close(write)
    with os.fdopen(read) as lines:
        sent = lines.read().split("\n")
    assert os.waitstatus_to_exitcode(status) == 0
    assert sent == [f"{os.getpid()} 1", f"{child} 2", ""]


@pytest.mark.integration
def test_a_verification_waits_in_the_broker_once_flushed(celery_broker_url: str, settings: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from config.celery import app
    from workers import dispatch
    from workers.broker import waiting_tasks

    settings.CELERY_BROKER_URL = celery_broker_url
    monkeypatch.setattr(app.conf, "broker_url", celery_broker_url)
    clear_queues(celery_broker_url)
    try:
        dispatch.send_verification(987654321)  # no such match: nothing consumes this queue here
        assert dispatch.flush_verifications(30)
        assert waiting_tasks(celery_broker_url, queue_names()[0]) == {"workers.verify_replay"}
    finally:
        clear_queues(celery_broker_url)
