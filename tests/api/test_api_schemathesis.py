"""schemathesis against the API's own OpenAPI schema, in process (WSGI): no 5xx, no answer that breaks the schema.

Authenticated as alice, who owns bots, versions and seats in the world of apiworld.py; the examples are generated
from the schema (max_examples kept modest), and every response is checked against it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from apiworld import World
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from hypothesis_profiles import examples
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
CHECKS = [schemathesis.checks.not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture
def alice_token(world: World) -> Iterator[str]:
    """alice's token; meanwhile the WSGI app keeps the test's connection open, as Django's test client does."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield world.tokens["owner"]
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=examples(15), deadline=None, suppress_health_check=list(HealthCheck))
def test_it_answers_every_generated_request_within_the_schema(case: Any, alice_token: str) -> None:
    case.call_and_validate(headers={"Authorization": f"Token {alice_token}"}, checks=CHECKS)
