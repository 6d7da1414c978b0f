"""`GET /api/`: where the API starts (a client or a person who types the bare prefix gets a map, not a 404)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_safe

RESOURCES = ("games", "bots", "versions", "ladders", "tournaments", "matches")


@require_safe
def api_root(request: HttpRequest) -> JsonResponse:
    return JsonResponse({
        "docs": request.build_absolute_uri("/api/docs/"),
        "schema": request.build_absolute_uri("/api/schema/"),
        **{name: request.build_absolute_uri(f"/api/{name}/") for name in RESOURCES},
    })
