"""The one rule for both doors of an upload, the page (`/upload/`) and the API (`POST /api/bots/upload/`).

- A size cap on the request, LUDUS_UPLOAD_MAX_BYTES plus the form around the file: checked on Content-Length before
  the body is read, by the ASGI server's front (config/asgi.py, which also refuses a body of unannounced length)
  and again by each view (a WSGI server or the test client reads a body only when a view asks for it).
- One throttle, DRF's `uploads` scope (LUDUS_UPLOAD_RATE): one count per user across both doors, checked before the
  form is parsed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from tournaments import throttles

SLACK = 64 * 1024  # multipart framing and the form fields around the file
URL_NAMES = ("pages:upload", "api:bot-upload")  # the two doors, by URL name
SCOPE = "uploads"


def request_cap() -> int:
    """The most bytes an upload request may announce."""
    return int(settings.LUDUS_UPLOAD_MAX_BYTES) + SLACK


def oversize_message(length: int) -> str | None:
    """Why a request that announces `length` bytes is refused (413), or None."""
    if length <= request_cap():
        return None
    return f"the request is {length} bytes; uploads are limited to {settings.LUDUS_UPLOAD_MAX_BYTES} bytes"


def file_too_large(name: str, size: int) -> str | None:
    """Why a file of `size` bytes is refused (the form's error), or None."""
    limit = settings.LUDUS_UPLOAD_MAX_BYTES
    return f"{name} is {size} bytes, over the upload limit of {limit} bytes" if size > limit else None


def throttle_wait(request: Any) -> float | None:
    """Counts this upload against its user's allowance; the seconds to wait when it is used up, else None. The API's
    view runs the same ScopedRateThrottle through DRF, so both doors share one count (tournaments/throttles.py)."""
    return throttles.throttle_wait(request, SCOPE)


def announced_length(request: HttpRequest) -> int:
    """The request's Content-Length (0 when absent or not a number: the server framed the body by it anyway)."""
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0
