"""One upload rule for both doors, the page (`/upload/`) and the API (`POST /api/bots/upload/`): one throttle
(LUDUS_UPLOAD_RATE, one count per user across both), and a size cap checked before the body is read: against the
real server (gunicorn with uvicorn workers), a request that announces more than the cap is answered 413 while its
body is still unsent, and one that announces no length (chunked) 411."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from liveserver import REQUEST_TIMEOUT_S, start_server
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle
from testkit import stop_process

from tournaments.models import BotVersion

SOURCE = b"from engine.sdk import run\nrun(lambda view, decision: 0)\n"
HUGE = 100 * 1024 * 1024


def api_upload(client: Any, name: str = "hungry", data: bytes = SOURCE) -> Any:
    return client.post("/api/bots/upload/", page_form(name, data), format="multipart")


def page_form(name: str = "hungry", data: bytes = SOURCE) -> dict[str, Any]:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return {"name": name, "game": "evolution", "file": SimpleUploadedFile(f"{name}.py", data)}


@pytest.fixture
def alice(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("alice")


@pytest.fixture
def two_an_hour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"uploads": "2/hour"})


@pytest.mark.django_db
def test_the_page_refuses_an_upload_once_the_api_used_the_allowance(alice: Any, client: Any, two_an_hour: None,
                                                                     ) -> None:
    api = APIClient()
    api.force_authenticate(alice)
    assert [api_upload(api).status_code for _ in range(3)] == [201, 201, 429]
    client.force_login(alice)
    refused = client.post("/upload/", page_form())
    assert refused.status_code == 429 and "too many uploads" in refused.content.decode()
    assert BotVersion.objects.count() == 2


@pytest.mark.django_db
def test_the_api_refuses_an_upload_once_the_page_used_the_allowance(alice: Any, client: Any, two_an_hour: None,
                                                                    ) -> None:
    client.force_login(alice)
    assert [client.post("/upload/", page_form()).status_code for _ in range(2)] == [302, 302]
    api = APIClient()
    api.force_authenticate(alice)
    assert api_upload(api).status_code == 429
    assert BotVersion.objects.count() == 2


@pytest.mark.django_db
def test_the_page_refuses_a_file_over_the_limit_naming_it(alice: Any, client: Any, settings: Any) -> None:
    settings.LUDUS_UPLOAD_MAX_BYTES = 2000
    client.force_login(alice)
    response = client.post("/upload/", page_form(data=b"#" * 2001))
    assert response.status_code == 200 and "over the upload limit of 2000 bytes" in response.content.decode()
    assert not BotVersion.objects.exists()


@pytest.mark.django_db
def test_the_page_answers_413_to_a_request_over_the_cap(alice: Any, client: Any, settings: Any) -> None:
    settings.LUDUS_UPLOAD_MAX_BYTES = 2000
    client.force_login(alice)
    response = client.post("/upload/", page_form(data=b"#" * 200_000))
    assert response.status_code == 413 and "limited to 2000 bytes" in response.content.decode()


@pytest.fixture
def server(celery_broker_url: str, tmp_path: Any) -> Iterator[int]:
    process, port, log = start_server(tmp_path, celery_broker_url, workers=1)
    try:
        yield port
    finally:
        stop_process(process)
        log.close()


def announce(port: int, path: str, headers: str) -> bytes:
    """Send a request's head only (no body) and read what the server answers; fail if it waits for the body."""
    with socket.create_connection(("127.0.0.1", port), timeout=REQUEST_TIMEOUT_S) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode())
        answer = b""
        try:
            while chunk := sock.recv(65536):  # the server closes the connection after refusing
                answer += chunk
            return answer
        except TimeoutError:
            pytest.fail(f"{path}: the server waited for the body instead of refusing it")


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/upload/", "/api/bots/upload/"])
def test_the_server_refuses_an_announced_huge_upload_before_reading_it(server: int, path: str) -> None:
    head = announce(server, path, f"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {HUGE}\r\n")
    assert head.startswith(b"HTTP/1.1 413 "), head[:200]
    assert b"uploads are limited to 1048576 bytes" in head


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/upload/", "/api/bots/upload/"])
def test_the_server_refuses_an_upload_of_unannounced_length(server: int, path: str) -> None:
    head = announce(server, path, "Content-Type: multipart/form-data; boundary=x\r\nTransfer-Encoding: chunked\r\n")
    assert head.startswith(b"HTTP/1.1 411 "), head[:200]
    assert b"Content-Length" in head
