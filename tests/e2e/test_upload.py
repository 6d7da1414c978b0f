"""A logged-in author uploads a version on the upload page and reads its validation result."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tournaments.models import BotVersion
from workers.validation import validate_version

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"


@pytest.fixture
def no_dispatch(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The test validates in the real sandbox itself, instead of handing the version to a pool or a broker."""
    sent: list[int] = []
    monkeypatch.setattr("tournaments.bot_lifecycle.dispatch_validation", sent.append)
    return sent


def log_in(page: Any, username: str, password: str) -> None:
    page.goto("/upload/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Upload a bot version")


def upload(page: Any, name: str, filename: str, source: bytes) -> None:
    page.fill("#id_name", name)
    page.select_option("#id_game", "evolution")
    page.set_input_files("#id_file", files=[{"name": filename, "mimeType": "text/x-python", "buffer": source}])
    page.click("form.stack button[type=submit]")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")
def test_an_author_uploads_a_bot_and_reads_its_validation(
    page: Any, alice: Any, no_dispatch: list[int], check_a11y: Any
) -> None:
    log_in(page, "alice", "alice-password-1")
    check_a11y(page)
    upload(page, "my-first-bot", "bot.py", EXAMPLE.read_bytes())
    expect(page.locator("#version-status")).to_have_text("pending")
    version = BotVersion.objects.get(bot__owner=alice, bot__name="my-first-bot")
    assert no_dispatch == [version.pk]
    check_a11y(page)

    assert validate_version(version.pk) == "active"  # the smoke match, in the real sandbox
    # The pending page reloads itself every 3 s (pages/version.html): a reload from here could abort that one.
    expect(page.locator("#version-status")).to_have_text("active", timeout=10_000)
    expect(page.locator("#validation-log")).to_contain_text("Verdict: active")
    check_a11y(page)

    link = page.locator("#validation-match a")  # the smoke match, kept unrated, opens from the bot's seat
    expect(link).to_have_attribute("href", re.compile(r"^/replays/\d+/#view=0$"))
    link.click()
    # The viewer writes its step into the address once the replay is drawn, so either form may be seen.
    expect(page).to_have_url(re.compile(r"/replays/\d+/#(step=\d+&)?view=0$"))
    expect(page.locator("#view-select")).to_have_value("0")
    check_a11y(page)


def test_an_upload_that_does_not_compile_is_rejected_with_its_error(
    page: Any, alice: Any, no_dispatch: list[int]
) -> None:
    log_in(page, "alice", "alice-password-1")
    upload(page, "broken", "broken.py", b"def act(view, decision:\n    return 0\n")
    expect(page.locator("#version-status")).to_have_text("rejected")
    expect(page.locator("#validation-log")).to_contain_text("broken.py")
    assert no_dispatch == []


def test_only_the_owner_reads_the_log(page: Any, alice: Any, bob: Any, no_dispatch: list[int]) -> None:
    log_in(page, "bob", "bob-password-1")
    upload(page, "bobs-bot", "bot.py", b"def act(view, decision:\n")
    version = BotVersion.objects.get(bot__name="bobs-bot")
    page.click("header form button")  # log out
    page.goto(f"/versions/{version.pk}/")
    expect(page.locator("#log-h + p")).to_have_text("Only the bot's owner reads the validation log.")
