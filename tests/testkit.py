"""Plain helpers shared by the service tests, importable by name (every conftest.py is a module called `conftest`)."""

from __future__ import annotations

import io
import os
import runpy
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def database_url() -> str:
    """A URL for the database the tests use now (pytest-django's test database), for subprocesses."""
    from django.db import connection

    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1", DATABASE_URL=database_url())
    env.update(extra)
    return env


def wait_until(predicate: Callable[[], Any], deadline_s: float, what: str, poll_s: float = 0.2) -> Any:
    """Poll predicate until it returns something truthy; fail naming `what` at the deadline."""
    deadline = time.monotonic() + deadline_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {deadline_s:.0f}s waiting for {what}")
        time.sleep(poll_s)  # a poll interval, not a wait for an outcome: the deadline decides


def start_celery_worker(name: str, env: dict[str, str], log_path: Path, concurrency: int = 1,
                        extra: tuple[str, ...] = (), **popen: Any) -> subprocess.Popen[bytes]:
    """`celery -A config worker` as a real subprocess: prefork, INFO logs into log_path, named `name@host`, and
    without gossip or mingle (no waiting on other workers)."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=prefork", "-c", str(concurrency),
             "--loglevel=INFO", "-n", f"{name}@%h", "--without-gossip", "--without-mingle", *extra],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, **popen)


def queue_names() -> list[str]:
    """The Celery queues of this process: under xdist, this worker's own (LUDUS_QUEUE, see tests/testenv.py)."""
    from django.conf import settings

    return [queue.name for queue in settings.CELERY_TASK_QUEUES]


def clear_queues(broker_url: str, names: list[str] | None = None) -> None:
    """Empty these queues (default: this process's) on the broker, and nothing else another test run may use."""
    import redis

    from workers.broker import queue_keys

    redis.Redis.from_url(broker_url).delete(*(key for name in names or queue_names() for key in queue_keys(name)))


def ping_workers(names: list[str]) -> list[Any]:
    """Replies from the Celery workers started with these names (`-n NAME@%h`), and from no other test's workers."""
    from config.celery import app

    hosts = [f"{name}@{socket.gethostname()}" for name in names]
    return list(app.control.ping(destination=hosts, timeout=0.5))


def wait_workers_idle(names: list[str], broker_url: str, deadline_s: float = 60.0) -> None:
    """Until these workers run and hold no task and this process's queues are empty, twice in a row (a task may send
    another: a match its verification, a verification its tournament's next step), or the deadline. A transactional
    test's flush (TRUNCATE) must not meet a task still querying the tables: the two deadlock, and the next test
    starts on the last one's rows."""
    import redis

    from config.celery import app
    from workers.broker import queue_keys

    hosts = [f"{name}@{socket.gethostname()}" for name in names]
    client = redis.Redis.from_url(broker_url)
    keys = [key for queue in queue_names() for key in queue_keys(queue)]
    deadline, quiet = time.monotonic() + deadline_s, 0
    while quiet < 2 and time.monotonic() < deadline:
        inspect = app.control.inspect(destination=hosts, timeout=1.0, limit=len(hosts))
        busy = any(client.llen(key) for key in keys) or any(
            tasks for found in (inspect.active(), inspect.reserved()) for tasks in (found or {}).values())
        quiet = 0 if busy else quiet + 1
        time.sleep(0.05)  # between two looks, not a wait for an outcome: the looks decide


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """Terminate the process, and kill it when it has not ended within a minute."""
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something on this host accepts connections on the loopback port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def zipped(files: dict[str, bytes]) -> bytes:
    """A zip holding files (path -> bytes), as an author's upload."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def read_settings(env: dict[str, str]) -> dict[str, Any]:
    """config/settings.py evaluated in this process with exactly `env` as its environment (this process's is put
    back after): what a new process reads at start-up, without the second of CPU a new Django process costs. No
    local settings file is read unless env names one (LUDUS_ENV_FILE). Raises what the settings raise."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({"LUDUS_ENV_FILE": "", **env})
    try:
        return runpy.run_path(str(ROOT / "config" / "settings.py"), run_name="settings_as_read_at_start_up")
    finally:
        os.environ.clear()
        os.environ.update(saved)

