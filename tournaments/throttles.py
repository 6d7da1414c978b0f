"""A page form that does what an API endpoint does counts against the endpoint's throttle: one bucket per scope and
user (ScopedRateThrottle's cache key), whichever door a request comes through."""

from __future__ import annotations

from typing import Any

from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView


def throttle_wait(request: Any, scope: str) -> float | None:
    """Counts this request against its user's allowance in `scope`; the seconds to wait when it is used up, else
    None."""
    door = APIView()
    door.throttle_scope = scope  # type: ignore[attr-defined]  # what ScopedRateThrottle reads from the view
    throttle = ScopedRateThrottle()
    if throttle.allow_request(request, door):
        return None
    return throttle.wait() or 0.0
