"""The pages without a browser: they render empty, the upload page needs a login, private bots stay private."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tournaments.models import Bot, BotVersion

pytestmark = pytest.mark.django_db


def test_it_renders_every_page_on_an_empty_database(client: Client) -> None:
    for path in ("/", "/matches/", "/accounts/login/"):
        assert client.get(path).status_code == 200, path


def test_the_upload_page_sends_anonymous_users_to_the_login(client: Client) -> None:
    response = client.get("/upload/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_upload_stores_a_version_and_shows_its_page(client: Client, alice: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tournaments.bot_lifecycle.dispatch_validation", lambda version_id: None)
    client.force_login(alice)
    data = {"name": "hungry", "game": "evolution", "description": "eats",
            "file": SimpleUploadedFile("bot.py", b"def act(view, decision):\n    return 0\n")}
    response = client.post("/upload/", data)
    version = BotVersion.objects.get(bot__owner=alice, bot__name="hungry")
    assert response.status_code == 302 and response["Location"] == f"/versions/{version.pk}/"
    assert version.status == BotVersion.Status.PENDING
    assert "pending" in client.get(response["Location"]).content.decode()


def test_a_bad_upload_shows_the_reason_and_stores_nothing(client: Client, alice: Any) -> None:
    client.force_login(alice)
    data = {"name": "hungry", "game": "evolution", "file": SimpleUploadedFile("bot.exe", b"MZ\x90\x00")}
    response = client.post("/upload/", data)
    assert response.status_code == 200 and 'class="error"' in response.content.decode()
    assert not BotVersion.objects.exists()


def test_a_private_bot_is_not_found_for_others(client: Client, alice: Any, bob: Any) -> None:
    bot = Bot.objects.create(owner=alice, name="secret", game="evolution", visibility=Bot.Visibility.PRIVATE)
    assert client.get(f"/bots/{bot.pk}/").status_code == 404
    client.force_login(bob)
    assert client.get(f"/bots/{bot.pk}/").status_code == 404
    client.force_login(alice)
    assert client.get(f"/bots/{bot.pk}/").status_code == 200


def test_bad_filters_are_ignored(client: Client) -> None:
    assert client.get("/matches/?status=nonsense&competition=ladder:x&bot=%00&page=999").status_code == 200
