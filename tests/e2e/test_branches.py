"""A bot author studying a lost game: "Branch from here" in the viewer, then the branch beside its parent
(docs/branches.md). Desktop and phone, axe clean."""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_pages import log_in
from playwright.sync_api import expect

from tournaments.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("embedded_runner_stopped")]

SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_an_author_branches_a_finished_match_at_a_step_and_compares_it_with_the_parent(
    size: str, browser: Any, live_server: Any, problems: Any, play: Any, charlie: Any, check_a11y: Any,
    screenshot: Any, wait_until: Any
) -> None:
    parent = play("marine", 2)
    context = browser.new_context(base_url=live_server.url, viewport=SIZES[size])
    page = context.new_page()
    problems.watch(page)
    page.goto(f"/replays/{parent.pk}/#step=20")
    expect(page.locator("#board")).to_have_attribute("data-step", "20")
    expect(page.locator("#branch-panel")).to_have_count(0)  # anonymous: nothing to branch with
    log_in(page, "charlie", "charlie-password-1")
    page.goto(f"/replays/{parent.pk}/#step=20")
    expect(page.locator("#board")).to_have_attribute("data-step", "20")
    page.click("#branch-panel summary")
    expect(page.locator("#branch-step")).to_have_value("20")
    expect(page.locator("#branch-what")).to_contain_text("Keeps steps 1 to 20")
    options = page.locator("#branch-force option")
    assert options.count() > 2  # "as played" and the decision's options
    check_a11y(page)
    screenshot(page, f"branch-form-{size}")
    page.select_option("#branch-seat-1", "random")
    played = re.search(r"#(\d+)", options.first.text_content() or "")
    other = "0" if played and played.group(1) != "0" else "1"  # a move the parent did not play
    page.select_option("#branch-force", other)
    page.click("#branch-submit")
    expect(page).to_have_url(re.compile(r"/replays/\d+/compare/$"))
    child = Match.objects.get(parent=parent)
    expect(page.locator("#branch-status")).to_have_text(re.compile("^(queued|running|finished)$"))
    expect(page.locator("#branch-point")).to_contain_text(f"Keeps the parent's first 19 steps, then plays option "
                                                          f"#{other} as step 20")
    # The live server's embedded runner plays it, as a worker would.
    wait_until(lambda: Match.objects.filter(pk=child.pk, status=Match.Status.FINISHED).exists(), 120,
               f"branch {child.pk} to finish")
    page.reload()
    expect(page.locator("#branch-status")).to_have_text("finished")
    expect(page.locator("#compare-chart polyline")).to_have_count(4)
    expect(page.locator("#compare-chart figcaption")).to_contain_text("step 20 is the branch point")
    for score in Match.objects.get(pk=child.pk).seats.values_list("score", flat=True):
        expect(page.locator("#compare-scores")).to_contain_text(str(score))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
    check_a11y(page)
    screenshot(page, f"branch-compare-{size}")
    page.click("text=Watch the branch from step 20")
    expect(page.locator("#board")).to_have_attribute("data-step", "20")
    expect(page.locator("#branch-of")).to_contain_text(f"Branch of match #{parent.pk} at step 20")
    expect(page.locator("#decision")).to_contain_text("← chosen")
    check_a11y(page)
    context.close()
    assert problems.errors == [], "\n".join(problems.errors)
