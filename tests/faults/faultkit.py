"""Tools for the fault tests: a private redis-server, Celery workers we may kill, slow uploaded bots, checks.

Every fault test runs against its own `redis-server` on a free port (never the shared one at 6379) and Celery worker
processes in their own sessions, so the test can SIGKILL or SIGSTOP a whole worker (the main process and its pool
child) and nothing else. Teardown continues and kills every process it started, and waits for them.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from testkit import ROOT, free_port, start_celery_worker, wait_until

from benchmarks.recovery import TcpProxy  # the benchmark cuts the workers' database the same way

__all__ = ["TcpProxy"]

EXAMPLE_BOT = (ROOT / "examples" / "bots" / "evolution_bot.py").read_text()

# Fault settings for the workers: a lease lost after 4 s without a heartbeat, a redelivery after 5 s.
FAULT_ENV = {
    "LUDUS_HEARTBEAT_SECONDS": "1",
    "LUDUS_LEASE_SECONDS": "4",
    "LUDUS_VISIBILITY_TIMEOUT": "5",
    "LOG_LEVEL": "INFO",
}


def slow_bot_source(delay_s: float, tag: str = "") -> bytes:
    """The example Evolution bot, thinking delay_s per decision, so a match is still playing when the fault hits."""
    wrapper = (
        "import time as _time\n"
        "_act = act\n"
        f"def act(view, decision):\n    _time.sleep({delay_s!r})\n    return _act(view, decision)\n"
        f"# {tag}\n"
        "ludus.run(act)\n"
    )
    return EXAMPLE_BOT.replace("ludus.run(act)", wrapper).encode()


NO_PERSISTENCE = ("--save", "", "--appendonly", "no")


class RedisServer:
    """A redis-server on a free loopback port, that a test may kill and start again; without persistence unless
    `flags` asks for it (its files go to log_dir)."""

    def __init__(self, log_dir: Path, flags: tuple[str, ...] = NO_PERSISTENCE) -> None:
        self.flags = flags
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log_dir = log_dir
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        import redis

        self.starts += 1
        log = open(self.log_dir / f"redis-{self.starts}.log", "wb")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", *self.flags, "--dir", str(self.log_dir),
             "--daemonize", "no"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        wait_until(answers, 30, f"redis-server on port {self.port} to answer", poll_s=0.05)

    def kill(self) -> None:
        """SIGKILL: with no persistence everything queued is gone, as when a broker host dies."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.url)

    def queued_matches(self) -> int:
        """Messages waiting in the match queue, over all its priority lists."""
        from django.conf import settings

        from workers.broker import queue_keys

        client = self.client()
        return sum(client.llen(key) for key in queue_keys(settings.CELERY_TASK_DEFAULT_QUEUE))


@dataclass
class Worker:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    stopped: bool = False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def signal(self, sig: int) -> None:
        """Send sig to the whole worker: the main process and its pool children share its process group."""
        os.killpg(self.process.pid, sig)
        self.stopped = sig == signal.SIGSTOP

    def pids(self) -> set[int]:
        """The worker's processes (the main one and its pool children), from /proc."""
        pids = {self.process.pid}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if os.getpgid(int(entry.name)) == self.process.pid:
                        pids.add(int(entry.name))
                except ProcessLookupError:
                    continue
        return pids

    def holds(self, lease_owner: str) -> bool:
        """True when the lease owner string (host:pid:nonce) names one of this worker's processes."""
        match = re.fullmatch(r".*:(\d+):[0-9a-f]+", lease_owner or "")
        return bool(match) and int(match.group(1)) in self.pids()


@dataclass
class WorkerPool:
    """Starts Celery workers on a broker and the current test database; kills and reaps them all at the end."""

    log_dir: Path
    env: Callable[..., dict[str, str]]
    workers: list[Worker] = field(default_factory=list)

    def start(self, name: str, broker_url: str, concurrency: int = 1, **env: str) -> Worker:
        log_path = self.log_dir / f"worker-{name}.log"
        process = start_celery_worker(f"fault-{name}-{os.getpid()}",
                                      self.env(CELERY_BROKER_URL=broker_url, **{**FAULT_ENV, **env}), log_path,
                                      concurrency, extra=("--without-heartbeat",), start_new_session=True)
        worker = Worker(name, process, log_path)
        self.workers.append(worker)
        wait_until(lambda: process.poll() is not None or " ready." in worker.log(), 180, f"worker {name} to start")
        if process.poll() is not None:
            pytest.fail(f"worker {name} exited with {process.returncode}:\n{worker.log()[-3000:]}")
        return worker

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                try:
                    os.killpg(worker.process.pid, signal.SIGCONT)
                    os.killpg(worker.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            worker.process.wait(timeout=60)
        self.workers.clear()


def proxied_database_url(proxy: TcpProxy) -> str:
    """DATABASE_URL for this test database, through the proxy."""
    from urllib.parse import quote

    from django.db import connection

    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    return f"postgres://{quote(db['USER'])}{password}@127.0.0.1:{proxy.port}/{db['NAME']}"


def use_broker(url: str | None) -> Callable[[], None]:
    """Point this (test) process's Celery app at a broker; return a function that restores the previous one.

    Celery reads the CELERY_BROKER_URL environment variable before its own setting (`make test` sets it), so both
    change. Kombu keeps connection and producer pools in a process-wide registry keyed by URL: it is reset so the
    next send connects afresh, and nothing later is handed a pool closed here.
    """
    from django.conf import settings

    from config.celery import app

    previous = (os.environ.get("CELERY_BROKER_URL"), settings.CELERY_BROKER_URL, app.conf.broker_url)

    def point_at(env_url: str | None, settings_url: str | None, conf_url: str | None) -> None:
        from kombu import pools

        if env_url is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = env_url
        settings.CELERY_BROKER_URL = settings_url
        app.conf.broker_url = conf_url
        pools.reset()
        app._pool = None
        app.amqp._producer_pool = None

    point_at(url, url, url)
    return lambda: point_at(*previous)


def reap() -> int:
    """One beat of the reaper task, run here: requeue expired leases and re-send lost queued matches."""
    from workers.tasks import requeue_expired_task

    return int(requeue_expired_task())


def check_one_result_per_match(matches: Any) -> None:
    """Every finished match has one replay, all its seats scored and rated, and each rating counts its games."""
    from django.db.models import Q

    from replays.models import Replay
    from replays.progress import MatchProgress
    from tournaments.models import Rating, Seat
    from tournaments.ratings import rating_differences

    for match in matches:
        assert match.status == "finished", (match.pk, match.status, match.error)
        assert Replay.objects.filter(match=match).count() == 1
        seats = list(match.seats.all())
        assert len(seats) == match.num_players
        assert all(s.rank and s.score is not None and s.rating_mu_after is not None for s in seats)
        assert match.rating_seq is not None
        assert not MatchProgress.objects.filter(match=match).exists()
    tournament_ids = {m.tournament_id for m in matches}
    for rating in Rating.objects.filter(tournament_id__in=tournament_ids):
        played = Seat.objects.filter(match__tournament_id=rating.tournament_id, bot_version=rating.bot_version,
                                     match__status="finished").count()
        assert rating.games == played, (rating.bot_version_id, rating.games, played)
    for tournament_id in tournament_ids:
        assert rating_differences(Q(tournament_id=tournament_id), Q(tournament_id=tournament_id)) == []
