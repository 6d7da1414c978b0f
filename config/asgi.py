"""ASGI entry point: `gunicorn config.asgi:application -k uvicorn_worker.UvicornWorker` (gunicorn.conf.py).

The pages and the API are sync Django views (each request runs in a thread of its own); the live feeds stream from
the event loop (replays/api/feeds.py), so the feeds that spectators keep open hold no worker.

Django's ASGI handler reads a request's whole body before any view runs, so the upload rule's size cap
(tournaments/upload_rule.py) is checked here first, on the headers: an upload that announces more than the cap is
answered 413, and one that announces no length 411, with its body unread.
"""

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

from django.urls import Resolver404, resolve  # noqa: E402 (after the settings are set up)

from tournaments import upload_rule  # noqa: E402

Scope = dict[str, Any]


async def application(scope: Scope, receive: Any, send: Any) -> None:
    if scope["type"] == "http" and scope["method"] == "POST" and _is_upload(scope["path"]):
        refusal = _refusal(dict(scope["headers"]))
        if refusal:
            await _answer(send, *refusal)
            return
    await django_application(scope, receive, send)


def _is_upload(path: str) -> bool:
    try:
        return resolve(path).view_name in upload_rule.URL_NAMES
    except Resolver404:
        return False


def _refusal(headers: dict[bytes, bytes]) -> tuple[int, str] | None:
    length = headers.get(b"content-length")
    if length is None or not length.strip().isdigit():
        return 411, "an upload must say its Content-Length (a chunked body is refused)"
    message = upload_rule.oversize_message(int(length))
    return (413, message) if message else None


async def _answer(send: Any, status: int, message: str) -> None:
    body = (message + "\n").encode()
    # Connection: close, since the unread body would otherwise be taken for the next request.
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
