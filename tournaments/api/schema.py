"""The API's OpenAPI generator: every operation also documents the error answers it can give, and says where
authentication is optional.

Each view documents its success shapes; the errors are the same everywhere ({"detail": ...} or field → messages),
so they are added here rather than repeated: 400 and 401/403 for every operation (bad query parameters or bodies;
frames and writes need the right user), 404 for a missing object or page, 429 for throttled writes.

Public reads answer anonymous clients too (docs/architecture.md#api-and-web), so their security requirements include
`{}`: a token or
a session shows more (your private bots, your seats' logs), none is needed. `?format=` is no renderer switch in the
API (api/negotiation.py), so no operation documents it.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance
from rest_framework import permissions

from tournaments.api.common import BAD_INPUT, ERROR, StrictSerializer


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
                responses[code] = self._get_response_for_code(  # type: ignore[no-untyped-call]
                    BAD_INPUT if code == "400" else ERROR, code)
        return responses

    def _map_serializer(self, serializer: Any, direction: Any, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer(serializer, direction, bypass_extensions)  # type: ignore[no-untyped-call]
        instance = force_instance(serializer)  # type: ignore[no-untyped-call]
        if direction == "request" and isinstance(instance, StrictSerializer):
            schema["additionalProperties"] = False  # StrictSerializer answers 400 naming an unknown field
        if direction == "response":
            for name in getattr(instance, "null_items_in_answers", ()):  # ids a reader may not see answer as null
                schema["properties"][name]["items"]["nullable"] = True
        return schema

    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        if {} not in auths and self._is_anonymous_allowed():
            auths.append({})
        return auths

    def _is_anonymous_allowed(self) -> bool:
        checks = self.view.get_permissions()
        if not checks:  # the token login: no permission to ask
            return True
        reads = self.method in permissions.SAFE_METHODS
        return any(getattr(check, "anonymous_reads", False) for check in checks) and reads

    def _get_format_parameters(self) -> list[dict[str, Any]]:
        return []


def no_nul_in_text_parameters(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: Django refuses a NUL character in any text (a 400 naming it), so every
    free-text query parameter says so with a pattern."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                schema = parameter.get("schema", {})
                if parameter.get("in") == "query" and schema.get("type") == "string" and not (
                        {"enum", "format", "pattern"} & set(schema)):
                    schema["pattern"] = "^[^\\u0000]*$"
    return result

