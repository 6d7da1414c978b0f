"""Fixtures for the fault tests: a private redis-server, a pool of killable Celery workers, slow uploaded bots."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faultkit import RedisServer, WorkerPool, slow_bot_source, use_broker


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    restore_broker = use_broker(server.url)
    try:
        yield server
    finally:
        restore_broker()
        server.kill()


@pytest.fixture
def worker_pool(tmp_path: Path, subprocess_env: Callable[..., dict[str, str]]) -> Iterator[WorkerPool]:
    pool = WorkerPool(tmp_path, subprocess_env)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def fault_settings(settings: Any) -> Any:
    """The test process reaps as beat would, with the workers' short leases."""
    settings.LUDUS_HEARTBEAT_SECONDS = 1
    settings.LUDUS_LEASE_SECONDS = 4
    return settings


@pytest.fixture
def slow_versions(alice: Any, db: None) -> Callable[..., list[Any]]:
    """A factory: n active uploaded versions of the example Evolution bot, each thinking delay_s per decision."""
    from tournaments.models import Bot, BotVersion

    def make(n: int, delay_s: float) -> list[Any]:
        versions = []
        for i in range(n):
            bot = Bot.objects.create(owner=alice, name=f"slow-{i}", game="evolution")
            versions.append(BotVersion.objects.create(
                bot=bot, number=1, source=slow_bot_source(delay_s, tag=f"slow-{i}"), filename="bot.py",
                status=BotVersion.Status.ACTIVE,
            ))
        return versions

    return make


