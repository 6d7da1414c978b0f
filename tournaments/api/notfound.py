"""Every other path under /api/ answers a JSON 404 (Django's own 404 is an HTML page)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions
from rest_framework.decorators import api_view, permission_classes
from rest_framework.request import Request
from rest_framework.response import Response


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
@permission_classes([permissions.AllowAny])
def not_found(request: Request, path: str = "") -> Response:
    return Response({"detail": f"no API endpoint at {request.path}; see /api/docs/"}, status=404)
