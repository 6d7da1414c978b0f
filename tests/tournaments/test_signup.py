"""Sign-up for authors (docs/operations.md#sign-up): the real form with its CSRF token, the throttle by address with
the login's limit, the organiser's switch, and the system's usernames refused."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tournaments.builtins import SYSTEM_USER, system_user

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fresh_counts() -> None:
    cache.clear()


def browser(address: str = "127.0.0.1") -> Client:
    return Client(enforce_csrf_checks=True, REMOTE_ADDR=address)


def sign_up(client: Client, username: str, password: str = PASSWORD, email: str = "") -> Any:
    form = client.get("/accounts/signup/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token, "no CSRF token in the sign-up form"
    return client.post("/accounts/signup/", {"csrfmiddlewaretoken": token.group(1), "username": username,
                                             "email": email, "password1": password, "password2": password})


def test_an_author_signs_up_without_an_email_and_may_upload(django_user_model: Any) -> None:
    client = browser()
    assert 'href="/accounts/signup/"' in client.get("/").content.decode()
    response = sign_up(client, "newcomer")
    assert response.status_code == 302 and response["Location"] == "/upload/"
    user = django_user_model.objects.get(username="newcomer")
    assert user.email == "" and not user.is_staff and not user.is_superuser and user.check_password(PASSWORD)
    assert client.get("/upload/").status_code == 200


@pytest.mark.parametrize(("username", "password", "error"), [
    ("", PASSWORD, "This field is required."),
    ("has space", PASSWORD, "Enter a valid username."),
    ("newcomer", "short", "This password is too short."),
    ("newcomer", "12345678901", "This password is entirely numeric."),
])
def test_a_bad_sign_up_says_why_and_makes_no_account(username: str, password: str, error: str,
                                                     django_user_model: Any) -> None:
    response = sign_up(browser(), username, password)
    assert response.status_code == 200 and error in response.content.decode()
    assert not django_user_model.objects.exists()


def test_a_bad_email_is_refused(django_user_model: Any) -> None:
    response = sign_up(browser(), "newcomer", email="not an address")
    assert response.status_code == 200 and "Enter a valid email address." in response.content.decode()
    assert not django_user_model.objects.exists()


@pytest.mark.parametrize("username", [SYSTEM_USER, SYSTEM_USER.upper(), "tryout"])
def test_nobody_signs_up_as_the_system_before_it_exists(username: str, django_user_model: Any) -> None:
    """The built-in bots and the internal ladders belong to the `ludus` user, made on first use: whoever took the
    name first would own them."""
    response = sign_up(browser(), username)
    assert response.status_code == 200 and "the system&#x27;s own" in response.content.decode()
    assert not django_user_model.objects.exists()
    assert not system_user().has_usable_password()


def test_a_taken_username_is_refused_whatever_its_case(alice: Any, django_user_model: Any) -> None:
    response = sign_up(browser(), "ALICE")
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert django_user_model.objects.count() == 1


def test_an_address_is_throttled_after_the_logins_limit(settings: Any, django_user_model: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    client = browser("10.0.0.7")
    codes = [sign_up(client, f"bot{n}", "short").status_code for n in range(3)]
    refused = sign_up(client, "bot9")
    assert codes == [200, 200, 200] and refused.status_code == 429
    assert "Too many sign-up attempts" in refused.content.decode()
    assert not django_user_model.objects.exists()
    assert sign_up(browser("10.0.0.8"), "other").status_code == 302  # another address has its own count


def test_the_organiser_turns_sign_up_off(settings: Any, django_user_model: Any) -> None:
    settings.LUDUS_SIGNUP = False
    client = browser()
    assert 'href="/accounts/signup/"' not in client.get("/").content.decode()
    page = client.get("/accounts/signup/")
    assert page.status_code == 403 and "Sign-up is turned off" in page.content.decode()
    posted = Client().post("/accounts/signup/", {"username": "sneaky", "password1": PASSWORD, "password2": PASSWORD})
    assert posted.status_code == 403 and not django_user_model.objects.exists()
