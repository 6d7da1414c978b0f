"""`POST /api/auth/token/` (username, password): the API token of that user, for scripts and bots' CI.

The same login throttling as the login pages (django-axes, AUTHENTICATION_BACKENDS): after LUDUS_LOGIN_FAILURES
wrong passwords for one username from one address, that pair gets a 429 until the cool-off ends. Sessions for the API
come from the login page (`/accounts/login/`), throttled the same way.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import BAD_INPUT, ERROR
from tournaments.api.parsers import JSONBodyParser

TOKEN = inline_serializer("Token", fields={"token": serializers.CharField()})


class TokenLoginSerializer(AuthTokenSerializer):
    """DRF's token login form, with its two fields typed for the schema."""

    username = serializers.CharField(write_only=True)
    password = serializers.CharField(write_only=True, style={"input_type": "password"}, trim_whitespace=False)


class TokenLoginView(ObtainAuthToken):
    serializer_class = TokenLoginSerializer
    parser_classes = (FormParser, MultiPartParser, JSONBodyParser)  # ObtainAuthToken's, with our JSON parser

    @extend_schema(tags=["auth"], summary="Your API token, for your username and password (throttled)",
                   request=TokenLoginSerializer,
                   responses={200: TOKEN, 400: OpenApiResponse(BAD_INPUT, description="wrong username or password"),
                              429: OpenApiResponse(ERROR, description="locked out after too many wrong passwords")})
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().post(request, *args, **kwargs)

    def handle_exception(self, exc: Exception) -> Response:
        # django-axes marks the request it was given (DRF's, which its middleware does not see) on a lockout.
        if getattr(self.request, "axes_locked_out", False):
            minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
            return Response({"detail": f"too many wrong passwords for this username from your address: locked "
                                       f"for {minutes} minutes, and each further try starts the wait again"},
                            status=status.HTTP_429_TOO_MANY_REQUESTS)
        return super().handle_exception(exc)
