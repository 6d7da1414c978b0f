"""The admin's upload form on BotVersion "add", and the read-only validation log on its change page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tournaments.models import Bot, BotVersion

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "evolution_bot.py"
ADD_URL = "/admin/tournaments/botversion/add/"


@pytest.fixture
def staff(admin_user: Any) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def upload_form(owner: Any, data: bytes, filename: str = "bot.py") -> dict[str, Any]:
    return {"owner": str(owner.pk), "bot_name": "hungry", "game": "evolution", "description": "",
            "file": SimpleUploadedFile(filename, data)}


def test_the_add_page_is_an_upload_form(staff: Client) -> None:
    page = staff.get(ADD_URL).content.decode()
    for field in ('name="owner"', 'name="bot_name"', 'name="game"', 'name="file"'):
        assert field in page
    assert 'name="source"' not in page and 'name="status"' not in page


def test_an_upload_through_the_admin_is_the_next_version(staff: Client, alice: Any) -> None:
    response = staff.post(ADD_URL, upload_form(alice, EXAMPLE.read_bytes()))
    assert response.status_code == 302, response.content.decode()[:2000]
    version = BotVersion.objects.get()
    assert (version.bot.owner, version.bot.name, version.number, version.status) == (alice, "hungry", 1, "pending")
    assert response["Location"].endswith(f"/admin/tournaments/botversion/{version.pk}/change/")
    staff.post(ADD_URL, upload_form(alice, EXAMPLE.read_bytes() + b"# 2\n"))
    assert list(BotVersion.objects.values_list("number", flat=True)) == [1, 2]


def test_a_bad_upload_shows_the_reason_and_stores_nothing(staff: Client, alice: Any) -> None:
    response = staff.post(ADD_URL, upload_form(alice, b"not a zip", "bot.zip"))
    assert response.status_code == 200
    assert "not a valid zip file" in response.content.decode()
    assert not Bot.objects.exists()


def test_the_change_page_shows_the_log_read_only_and_never_the_source(staff: Client, alice: Any) -> None:
    staff.post(ADD_URL, upload_form(alice, b"import ludus\nx = = 1\n"))
    version = BotVersion.objects.get()
    assert version.status == "rejected"
    page = staff.get(f"/admin/tournaments/botversion/{version.pk}/change/").content.decode()
    assert "SyntaxError" in page and "line 2" in page
    assert 'name="validation_log"' not in page and 'name="source"' not in page
    listing = staff.get("/admin/tournaments/botversion/").content.decode()
    assert "import ludus" not in listing


def test_flagged_bots_are_listed_with_their_reason(staff: Client, alice: Any) -> None:
    staff.post(ADD_URL, upload_form(alice, EXAMPLE.read_bytes()))
    Bot.objects.update(flagged_reason="forfeited its last 3 matches (version 1)")
    page = staff.get("/admin/tournaments/bot/", {"flagged": "yes"}).content.decode()
    assert "forfeited its last 3 matches" in page
    assert "hungry" not in staff.get("/admin/tournaments/bot/", {"flagged": "no"}).content.decode()
