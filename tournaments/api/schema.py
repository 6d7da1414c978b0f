"""The API's OpenAPI generator: every operation also documents the error answers it can give.

Each view documents its success shapes; the errors are the same everywhere ({"detail": ...} or field → messages),
so they are added here rather than repeated: 400 and 401/403 for every operation (bad query parameters or bodies;
frames and writes need the right user), 404 for a missing object or page, 429 for throttled writes.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

from tournaments.api.common import BAD_INPUT, ERROR


class LudusAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction: Any = "response") -> Any:
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        codes = ["400", "401", "403", "404"]  # 404 too for lists: a page past the last one
        if self.method not in ("GET", "HEAD", "OPTIONS"):
            codes.append("429")
        for code in codes:
            if code not in responses:
                responses[code] = self._get_response_for_code(BAD_INPUT if code == "400" else ERROR, code)
        return responses
