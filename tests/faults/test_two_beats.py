"""Beat scaled twice by mistake: two real `celery beat` processes on one broker, and only one of them sends.

The other waits as a standby on the one-beat lease (workers/beat.py) and takes over when the first is killed, or at
once when the first is stopped. Each beat's messages are told apart by their `origin` header (gen<pid>@host).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faultkit import RedisServer
from testkit import ROOT, stop_process, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LEASE_SECONDS = 3
QUEUE = "beats"  # beat's housekeeping goes to "<queue>.control"
FAST_SCHEDULE = {"LUDUS_REAPER_SECONDS": "1", "LUDUS_LADDER_SECONDS": "1", "LUDUS_FLAG_SECONDS": "1"}


@pytest.fixture
def start_beat(redis_server: RedisServer, tmp_path: Path,
               subprocess_env: Callable[..., dict[str, str]]) -> Iterator[Callable[[str], subprocess.Popen[bytes]]]:
    beats: list[subprocess.Popen[bytes]] = []

    def start(name: str) -> subprocess.Popen[bytes]:
        env = subprocess_env(CELERY_BROKER_URL=redis_server.url, LUDUS_QUEUE=QUEUE, LOG_LEVEL="INFO",
                             LUDUS_BEAT_LOCK_SECONDS=str(LEASE_SECONDS), **FAST_SCHEDULE)
        with open(tmp_path / f"beat-{name}.log", "wb") as log:
            beat = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO",
                 f"--schedule={tmp_path / f'schedule-{name}'}"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        beats.append(beat)
        return beat

    try:
        yield start
    finally:
        for beat in beats:
            if beat.poll() is None:
                os.killpg(beat.pid, signal.SIGKILL)
            beat.wait(timeout=60)


def senders(server: RedisServer) -> list[int]:
    """The pid of the beat that sent each message of the control queue, oldest first. They are taken off the queue
    as a worker would: beat sends no task that still waits there (workers/beat.py)."""
    taken: list[int] = server.__dict__.setdefault("taken_senders", [])  # this broker's, taken so far
    client = server.client()
    while (message := client.rpop(f"{QUEUE}.control")) is not None:
        origin = json.loads(message)["headers"]["origin"]
        taken.append(int(origin.split("@")[0].removeprefix("gen")))
    return taken


def test_a_second_beat_sends_nothing_until_the_first_is_killed(
    redis_server: RedisServer, start_beat: Callable[[str], subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    first = start_beat("first")
    wait_until(lambda: senders(redis_server), 90, "the first beat to send a task")
    second = start_beat("second")
    wait_until(lambda: "beat: Starting..." in (tmp_path / "beat-second.log").read_text(), 90,
               "the second beat to start")
    before = len(senders(redis_server))
    wait_until(lambda: len(senders(redis_server)) >= before + 20, 90, "twenty sends with both beats running")
    assert second.poll() is None
    assert set(senders(redis_server)) == {first.pid}

    os.killpg(first.pid, signal.SIGKILL)  # no release: the lease runs out, then the standby takes over
    first.wait(timeout=30)
    sent_by_first = len(senders(redis_server))  # all the first sent, up to its death (the lease still holds)
    wait_until(lambda: second.pid in senders(redis_server), 10 * LEASE_SECONDS, "the second beat to take over")
    assert set(senders(redis_server)[:sent_by_first]) == {first.pid}
    assert set(senders(redis_server)[sent_by_first:]) == {second.pid}


def test_a_stopped_beat_hands_over_at_once(
    redis_server: RedisServer, start_beat: Callable[[str], subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    first = start_beat("first")
    wait_until(lambda: senders(redis_server), 90, "the first beat to send a task")
    assert redis_server.client().exists(f"{QUEUE}.beat-lease")
    assert (tmp_path / "schedule-first.alive").exists()  # what the healthchecks watch
    stop_process(first)  # SIGTERM: beat closes its scheduler, which releases the lease
    assert not redis_server.client().exists(f"{QUEUE}.beat-lease")

    second = start_beat("second")
    wait_until(lambda: second.pid in senders(redis_server), 60, "the second beat to send")


def test_the_beat_lease_holder_is_told_by_its_token(redis_server: RedisServer, settings: Any) -> None:
    from workers.beat import BeatLease

    first, second = (BeatLease(redis_server.url, "lease-test", 3) for _ in range(2))
    assert first.hold() and not second.hold()
    assert first.hold()  # renewing keeps it
    first.release()
    assert second.hold() and not first.hold()
