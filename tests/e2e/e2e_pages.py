"""Page steps the browser tests share."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect


def log_in(page: Any, username: str, password: str) -> None:
    """Sign in through the login form and land on the home page."""
    page.goto("/accounts/login/?next=/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/$"))
