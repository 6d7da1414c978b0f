"""An author asks "is greedy better than random?" from the version page's form, then watches the test's page go
from running to its verdict live, and opens one of its games' replays (docs/version-tests.md). Axe clean."""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_pages import log_in
from playwright.sync_api import expect

from tournaments.builtins import ensure_builtin
from tournaments.models import VersionTest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("embedded_runner_stopped")]


def test_an_author_starts_a_test_from_the_version_page_and_watches_it_decide(
    page: Any, charlie: Any, check_a11y: Any, screenshot: Any
) -> None:
    greedy, rand = ensure_builtin("greedy"), ensure_builtin("random")
    log_in(page, "charlie", "charlie-password-1")
    page.goto(f"/versions/{greedy.pk}/")
    expect(page.locator("#test-form")).to_be_visible()
    check_a11y(page)
    page.select_option("#id_base", str(rand.pk))
    page.select_option("#id_game", "marine")
    page.fill("#id_d1", "0.3")
    page.fill("#id_max_games", "400")
    page.click("#test-form button[type=submit]")
    expect(page).to_have_url(re.compile(r"/tests/\d+/$"))
    test = VersionTest.objects.get()
    expect(page.locator("h1")).to_contain_text("greedy@1 against random@1")
    # The page refreshes its live part while the test runs: no reload here.
    expect(page.locator("#test-verdict")).to_contain_text("Passed", timeout=240_000)
    test.refresh_from_db()
    assert test.status == VersionTest.Status.PASSED
    expect(page.locator("#games-played")).to_have_text(str(test.games_played))
    expect(page.locator("#test-seed")).to_have_text(str(test.seed))
    check_a11y(page)
    screenshot(page, "version-test")
    page.locator("a[href^='/replays/']").first.click()
    expect(page).to_have_url(re.compile(r"/replays/\d+/(#.*)?$"))  # the viewer writes its step into the address
    page.goto("/tests/")
    expect(page.locator(f"tr[data-test='{test.pk}']")).to_contain_text("passed")
    check_a11y(page)
    page.goto(f"/bots/{greedy.bot_id}/")
    # The test's games are unrated work: its page holds them, the bot's head to head (ladders and tournaments) not.
    expect(page.locator(f"tr[data-test='{test.pk}']")).to_be_visible()
    expect(page.locator("#h2h-opponents")).to_contain_text("No finished match yet.")
    check_a11y(page)
