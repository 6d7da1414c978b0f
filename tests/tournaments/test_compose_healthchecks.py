"""docker-compose.yml's healthchecks of the worker and beat services, run as written against real processes (only
the container's paths and host name are this machine's): healthy while the process works, failing once it stops.
The web service's check runs against the real server in tests/api/test_feeds_server.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from testkit import ROOT, ping_workers, start_celery_worker, stop_process, subprocess_env, wait_until

pytestmark = pytest.mark.integration


def healthcheck(service: str, tmp_path: Path, env: dict[str, str]) -> int:
    """The service's healthcheck command, as compose runs it ($$ is compose's escape for $), with /app/var/ pointing
    at tmp_path; its exit status."""
    test = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"][service]["healthcheck"]["test"]
    kind, *command = [part.replace("$$", "$").replace("/app/var/", f"{tmp_path}/") for part in test]
    if kind == "CMD-SHELL":
        argv = ["sh", "-c", command[0]]
    else:
        argv = [sys.executable if part == "python" else part for part in command]
    env = dict(env, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", HOSTNAME=socket.gethostname())
    return subprocess.run(argv, cwd=ROOT, env=env, timeout=120, capture_output=True).returncode


def test_the_worker_healthcheck_pings_the_worker(celery_broker_url: str, tmp_path: Path) -> None:
    env = subprocess_env(CELERY_BROKER_URL=celery_broker_url)
    worker = start_celery_worker("celery", env, tmp_path / "worker.log")  # compose's default name: celery@host
    try:
        # Ready first, by a ping from this process: each healthcheck is two new processes and waits up to 10 s
        wait_until(lambda: worker.poll() is not None or ping_workers(["celery"]), 90, "the worker to answer")
        assert healthcheck("worker", tmp_path, env) == 0
    finally:
        stop_process(worker)
    assert healthcheck("worker", tmp_path, env) != 0


def test_the_beat_healthcheck_follows_the_schedule_file(celery_broker_url: str, tmp_path: Path) -> None:
    env = subprocess_env(CELERY_BROKER_URL=celery_broker_url)
    assert healthcheck("beat", tmp_path, env) != 0  # no schedule file: beat never started
    with open(tmp_path / "beat.log", "wb") as log:
        beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO",
                                 f"--schedule={tmp_path}/celerybeat-schedule"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: healthcheck("beat", tmp_path, env) == 0, 60, "beat's healthcheck to pass")
    finally:
        stop_process(beat)
    stale = time.time() - 3600  # a beat that stopped ticking an hour ago
    for path in tmp_path.glob("celerybeat-schedule*"):
        os.utime(path, (stale, stale))
    assert healthcheck("beat", tmp_path, env) != 0


@pytest.fixture(autouse=True)
def no_stray_beat_tasks(celery_broker_url: str) -> Any:
    """Beat may send a task before it stops: drop it from this test database's queues, so no later test's worker
    runs it."""
    yield
    import redis
    from django.conf import settings

    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    redis.Redis.from_url(celery_broker_url).delete(queue, f"{queue}.control", f"{queue}.validation")
