"""A throwaway Ludus deployment on this machine, for the load benchmarks: its own PostgreSQL database (on the
server at DATABASE_URL's host), its own redis-server on a free loopback port, Celery workers, and gunicorn.

Nothing is shared with other users of the machine: the database is created and dropped, Redis is private, and
every process started here is stopped (the whole process group) on close.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
TIMINGS = re.compile(r"match (\d+) (.*?); timings (\{.*\})")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(predicate: Any, deadline_s: float, what: str, poll_s: float = 0.1) -> Any:
    deadline = time.monotonic() + deadline_s
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {deadline_s:.0f}s waiting for {what}")
        time.sleep(poll_s)
    return value


def database_url_named(server_url: str, name: str) -> str:
    parts = urlparse(server_url)
    return urlunparse(parts._replace(path=f"/{name}"))


@dataclass
class Cluster:
    """Start with `Cluster.create()`; always `close()` (it is a context manager)."""

    workdir: Path
    code: Path = ROOT
    server_url: str = DEFAULT_SERVER
    name: str = field(default_factory=lambda: f"ludus_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}")
    processes: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)
    redis_port: int = 0

    @property
    def database_url(self) -> str:
        return database_url_named(self.server_url, self.name)

    @property
    def broker_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def env(self, code: Path | None = None, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_", "LUDUS_"))}
        env.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1", DATABASE_URL=self.database_url,
                   CELERY_BROKER_URL=self.broker_url, PYTHONPATH=str(code or self.code), LOG_LEVEL="INFO")
        env.update(extra)
        return env

    # --- lifecycle ------------------------------------------------------------------------------------------------

    def create(self) -> Cluster:
        import psycopg

        self.workdir.mkdir(parents=True, exist_ok=True)
        with psycopg.connect(database_url_named(self.server_url, "postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=self.code,
                       env=self.env(), check=True)
        self.redis_port = free_port()
        self.spawn("redis", ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--daemonize", "no"])
        wait_for(self._redis_answers, 30, "redis-server")
        return self

    def close(self) -> None:
        for _, process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for _, process in reversed(self.processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.processes.clear()
        import psycopg

        with psycopg.connect(database_url_named(self.server_url, "postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def __enter__(self) -> Cluster:
        return self.create()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- processes ------------------------------------------------------------------------------------------------

    def spawn(self, name: str, argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
              ) -> subprocess.Popen[bytes]:
        with open(self.workdir / f"{name}.log", "wb") as log:
            process = subprocess.Popen(argv, cwd=cwd or self.code, env=env or self.env(), stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append((name, process))
        return process

    def stop(self, name: str) -> None:
        """SIGTERM the named process's group (a worker finishes its task first) and wait for it."""
        for entry in [e for e in self.processes if e[0] == name]:
            process = entry[1]
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            self.processes.remove(entry)

    def log(self, name: str) -> str:
        return (self.workdir / f"{name}.log").read_text(errors="replace")

    def start_worker(self, name: str, concurrency: int = 1, code: Path | None = None, **env: str) -> str:
        """A Celery worker (prefork, `concurrency` processes); returns its log name once it is ready."""
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=prefork", "-c", str(concurrency),
                "--loglevel=INFO", "-n", f"{name}-{os.getpid()}@%h", "--without-gossip", "--without-mingle"]
        process = self.spawn(name, argv, cwd=code, env=self.env(code, **env))
        wait_for(lambda: process.poll() is not None or " ready." in self.log(name), 180, f"worker {name}")
        if process.poll() is not None:
            raise RuntimeError(f"worker {name} exited:\n{self.log(name)[-3000:]}")
        return name

    def start_web(self, workers: int = 1, threads: int = 2) -> str:
        """gunicorn on a free loopback port; returns its base URL once it answers."""
        import urllib.request

        port = free_port()
        argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
                "--workers", str(workers), "--threads", str(threads), "--access-logfile", "-"]
        process = self.spawn("web", argv)
        base = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log('web')[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/api/games/", timeout=5) as response:
                    return bool(response.status == 200)
            except OSError:
                return False

        wait_for(answers, 120, "gunicorn", poll_s=0.3)
        return base

    def timings(self, *names: str) -> dict[int, dict[str, Any]]:
        """Per match id, the runner's logged phase timings and outcome, from the named workers' logs."""
        found: dict[int, dict[str, Any]] = {}
        import json

        for name in names:
            for match_id, outcome, timings in TIMINGS.findall(self.log(name)):
                if outcome == "finished":
                    found[int(match_id)] = json.loads(timings)
        return found

    def _redis_answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def setup_django(cluster: Cluster) -> None:
    """Point this process at the cluster's database and broker (before Django is set up)."""
    for key in [k for k in os.environ if k.startswith("LUDUS_")]:
        del os.environ[key]  # the workers get none of this shell's (Cluster.env): a LUDUS_QUEUE would part them
    for key, value in cluster.env().items():
        if key.startswith(("DJANGO_", "DATABASE_", "CELERY_", "DEBUG", "LOG_LEVEL")):
            os.environ[key] = value
    import django

    django.setup()
