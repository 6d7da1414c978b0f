"""Login throttling (django-axes) on every login: the login page, the admin's, and the API's token login.

Each test fills the real form as a browser does (its CSRF token included, with CSRF checks on): five wrong passwords
for one username from one address lock that pair out, and then even the right password is refused until the
cool-off ends. Lockouts are logged and listed in the admin.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"
LIMIT = 5  # LUDUS_LOGIN_FAILURES' default


@pytest.fixture
def carol(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("carol", password=PASSWORD)


@pytest.fixture
def root(django_user_model: Any) -> Any:
    return django_user_model.objects.create_superuser("root", "root@example.org", PASSWORD)


def log_in(client: Client, url: str, username: str, password: str) -> Any:
    """Fill the form at url: read it, send it back with its CSRF token, as a browser does."""
    form = client.get(url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token, f"no CSRF token in the form at {url}"
    return client.post(url, {"csrfmiddlewaretoken": token.group(1), "username": username, "password": password})


def browser(address: str = "127.0.0.1") -> Client:
    return Client(enforce_csrf_checks=True, REMOTE_ADDR=address)


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_it_locks_a_username_out_of_a_login_page_after_five_wrong_passwords(url: str, root: Any) -> None:
    client = browser()
    codes = [log_in(client, url, "root", "wrong").status_code for _ in range(LIMIT)]
    assert codes == [200] * (LIMIT - 1) + [429], codes
    refused = log_in(client, url, "root", PASSWORD)
    assert refused.status_code == 429 and "Too many failed logins" in refused.content.decode()
    assert "_auth_user_id" not in client.session


def test_it_lets_the_right_password_in_below_the_limit_and_forgets_the_failures(carol: Any) -> None:
    client = browser()
    for _ in range(LIMIT - 1):
        assert log_in(client, "/accounts/login/", "carol", "wrong").status_code == 200
    assert log_in(client, "/accounts/login/", "carol", PASSWORD).status_code == 302
    client.logout()
    for _ in range(LIMIT - 1):
        assert log_in(client, "/accounts/login/", "carol", "wrong").status_code == 200
    assert log_in(client, "/accounts/login/", "carol", PASSWORD).status_code == 302


def test_a_lockout_binds_one_username_at_one_address(carol: Any, root: Any) -> None:
    for _ in range(LIMIT):
        log_in(browser(), "/accounts/login/", "carol", "wrong")
    assert log_in(browser(), "/accounts/login/", "carol", PASSWORD).status_code == 429
    assert log_in(browser(), "/accounts/login/", "root", PASSWORD).status_code == 302
    assert log_in(browser("192.0.2.7"), "/accounts/login/", "carol", PASSWORD).status_code == 302


def test_a_forged_forwarded_address_does_not_escape_a_lockout(carol: Any) -> None:
    for n in range(LIMIT):
        client = Client(enforce_csrf_checks=True, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
        log_in(client, "/accounts/login/", "carol", "wrong")
    forged = Client(enforce_csrf_checks=True, HTTP_X_FORWARDED_FOR="198.51.100.200")
    assert log_in(forged, "/accounts/login/", "carol", PASSWORD).status_code == 429


def test_the_api_token_login_is_throttled_too(carol: Any) -> None:
    from rest_framework.authtoken.models import Token

    api = APIClient()
    good = api.post("/api/auth/token/", {"username": "carol", "password": PASSWORD}, format="json")
    assert good.status_code == 200 and good.json()["token"] == Token.objects.get(user=carol).key
    codes = [api.post("/api/auth/token/", {"username": "carol", "password": "wrong"}, format="json").status_code
             for _ in range(LIMIT)]
    assert codes == [400] * (LIMIT - 1) + [429], codes
    refused = api.post("/api/auth/token/", {"username": "carol", "password": PASSWORD}, format="json")
    assert refused.status_code == 429 and "locked" in refused.json()["detail"]


def test_a_lockout_is_logged_and_shown_in_the_admin(carol: Any, root: Any, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="axes"):
        for _ in range(LIMIT):
            log_in(browser("203.0.113.9"), "/accounts/login/", "carol", "wrong")
    assert any("locking out" in record.getMessage().lower() and "carol" in record.getMessage()
               and "203.0.113.9" in record.getMessage()
               for record in caplog.records), [r.getMessage() for r in caplog.records]
    admin = Client()
    admin.force_login(root)
    page = admin.get("/admin/axes/accessattempt/").content.decode()
    assert "carol" in page and "203.0.113.9" in page
    assert "carol" in admin.get("/admin/axes/accessfailurelog/").content.decode()
