"""Swagger UI (`/api/docs/`) under the site's Content-Security-Policy: its start-up script is a file of its own (no
inline script), it loads the schema and shows the API, and the browser logs no violation (the `page` fixture fails
the test on any console error)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)  # the e2e mark comes from conftest.py


def test_swagger_ui_shows_the_api_under_the_policy(page: Any) -> None:
    response = page.goto("/api/docs/")
    assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Ludus API")
    expect(page.locator(".opblock-tag", has_text="matches").first).to_be_visible()
