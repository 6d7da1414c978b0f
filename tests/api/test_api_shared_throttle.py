"""Throttling holds across web processes: gunicorn with two workers shares its counts through the Redis cache.

Each POST goes on a new connection, so the two workers both take some. With a cache per process each would allow
its own three uploads an hour; with CACHE_URL they allow three between them. DRF counts a request before it reads
the body, so empty uploads (400) count as well.
"""

from __future__ import annotations

import http.client
import subprocess
import sys
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from testkit import ROOT, free_port, listening, subprocess_env, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_two_web_processes_share_one_upload_allowance(django_user_model: Any, celery_broker_url: str,
                                                      tmp_path: Any) -> None:
    import redis

    cache_url = celery_broker_url  # the broker's Redis database: the throttle's keys do not touch the queues
    cache = redis.Redis.from_url(cache_url)

    def throttle_keys() -> list[bytes]:
        return list(cache.scan_iter(match="*throttle*"))

    if old := throttle_keys():
        cache.delete(*old)
    token = Token.objects.create(user=django_user_model.objects.create_user("uploader")).key
    port = free_port()
    log = open(tmp_path / "gunicorn.log", "wb")  # noqa: SIM115 (closed below, after the server)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "2", "-b", f"127.0.0.1:{port}"], cwd=ROOT,
        env=subprocess_env(CACHE_URL=cache_url, LUDUS_UPLOAD_RATE="3/hour", ALLOWED_HOSTS="127.0.0.1"),
        stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: listening(port) or server.poll() is not None, 60, "gunicorn to listen")
        assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()[-2000:]
        codes = []
        for _ in range(8):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", "/api/bots/upload/", body=b"",
                         headers={"Authorization": f"Token {token}", "Host": "127.0.0.1"})
            response = conn.getresponse()
            response.read()
            codes.append(response.status)
            conn.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    assert codes == [400, 400, 400, 429, 429, 429, 429, 429], codes
    assert throttle_keys(), "no throttle count in Redis"
