"""`/api/schema/` under concurrent clients, against the real server (gunicorn with uvicorn workers, whose ASGI handler
runs each view in a thread): every answer is a 200 with the same schema. drf-spectacular's generation is not
thread-safe, so the schema is built once per process, under a lock, and served from then on."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from liveserver import request, start_server
from testkit import stop_process

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
CLIENTS = 8
REQUESTS = 256


@pytest.fixture
def port(celery_broker_url: str, tmp_path: Any) -> Iterator[int]:
    process, port, log = start_server(tmp_path, celery_broker_url, workers=1)
    try:
        yield port
    finally:
        stop_process(process)
        log.close()


def test_eight_clients_get_the_one_schema_every_time(port: int) -> None:
    paths = ["/api/schema/?format=json", "/api/schema/"] * (REQUESTS // 2)
    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(lambda path: (path, *request(port, "GET", path)), paths))
    errors = [(path, status, body[:200]) for path, status, body in answers if status != 200]
    assert not errors, f"{len(errors)} of {REQUESTS} failed: {errors[:3]}"
    assert len({body for path, _, body in answers if "json" in path}) == 1
    assert len({body for path, _, body in answers if "json" not in path}) == 1
