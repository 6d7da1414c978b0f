"""The web server as the README runs it (gunicorn with uvicorn workers, config/asgi.py, the settings of
gunicorn.conf.py), started on a free loopback port against the test database, and plain HTTP requests to it."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from typing import Any

from django.conf import settings
from testkit import ROOT, free_port, listening, subprocess_env, wait_until

REQUEST_TIMEOUT_S = 30
# The README's command (and the Dockerfile's, compose's and deploy/k8s/web.yaml's), run from the repository's root
# as the image runs it from /app, where gunicorn finds gunicorn.conf.py.
COMMAND = ["-m", "gunicorn", "config.asgi:application", "--worker-class", "uvicorn_worker.UvicornWorker"]


def start_server(tmp_path: Any, cache_url: str, workers: int = 2,
                 **env: str) -> tuple[subprocess.Popen[bytes], int, Any]:
    """The server, listening; its process, port and log file (close the log once the process is stopped)."""
    import redis

    store = redis.Redis.from_url(cache_url)
    prefix = settings.DATABASES["default"]["NAME"]  # the server's cache prefix: its database's name (its settings)
    for key in store.scan_iter(f"{prefix}:*ludus:feed:*"):  # slots an earlier run left; only this test database's keys
        store.delete(key)
    port = free_port()
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 (closed with the server)
    server = subprocess.Popen(
        [sys.executable, *COMMAND, "--workers", str(workers), "--bind", f"127.0.0.1:{port}"], cwd=ROOT, stdout=log,
        stderr=subprocess.STDOUT,
        env=subprocess_env(CACHE_URL=cache_url, ALLOWED_HOSTS="127.0.0.1", LUDUS_FEED_SECONDS="300", **env))
    wait_until(lambda: listening(port) or server.poll() is not None, 60, "gunicorn to listen")
    assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
    return server, port, log


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            ) -> tuple[int, bytes]:
    """One request on a connection of its own: the status and the whole body (JSON when body is not bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    sent = {"Host": "127.0.0.1", **(headers or {})}
    if body is not None and not isinstance(body, bytes):
        body, sent = json.dumps(body).encode(), {"Content-Type": "application/json", **sent}
    try:
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()
