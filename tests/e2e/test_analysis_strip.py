"""A player studying a lost game with the viewer's analysis strip (docs/analysis.md): ask for a seat's analysis,
see its marks on the steps and the score chart, follow a loss to its step and read each option's estimate there.
Desktop and phone, axe clean."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_matches import short_evolution
from e2e_pages import log_in
from playwright.sync_api import expect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow,
              pytest.mark.usefixtures("embedded_runner_stopped")]

SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


# What reaches past the window's right edge, outermost first: what a failure names.
WIDEST = """[...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 6).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + [...e.classList].join('.') + ' '
  + Math.round(e.getBoundingClientRect().left) + '..' + Math.round(e.getBoundingClientRect().right)).join('; ')"""


def test_a_player_analyses_a_seat_and_follows_its_biggest_loss_on_a_desktop_and_a_phone(
    browser: Any, live_server: Any, problems: Any, charlie: Any, check_a11y: Any, screenshot: Any
) -> None:
    """One analysis (3 games per option: the fewest that mark), then the same strip on a phone."""
    match = short_evolution(charlie)
    context = browser.new_context(base_url=live_server.url, viewport=SIZES["desktop"])
    page = context.new_page()
    problems.watch(page)
    page.goto(f"/replays/{match.pk}/")
    expect(page.locator("#analysis-status")).to_contain_text("has not been analysed yet. Log in to ask for it.")
    expect(page.locator("#analysis-ask")).to_have_count(0)
    log_in(page, "charlie", "charlie-password-1")
    page.goto(f"/replays/{match.pk}/")
    page.select_option("#analysis-seat", "2")
    page.fill("#analysis-games", "3")
    page.click("#analysis-ask")
    expect(page.locator("#analysis-status")).to_contain_text("Seat 2 by greedy, 3 games per option")
    expect(page.locator("#analysis-status")).to_contain_text("(finished)", timeout=400_000)
    for size in ("desktop", "phone"):
        if size == "phone":
            context.close()
            context = browser.new_context(base_url=live_server.url, viewport=SIZES[size])
            page = context.new_page()
            problems.watch(page)
            page.goto(f"/replays/{match.pk}/")
            page.select_option("#analysis-seat", "2")
        marks = page.locator("#analysis-marks .analysis-mark")
        losses = page.locator("#analysis-losses li a")
        expect(losses.first).to_be_visible()
        expect(marks.first).to_be_visible()  # placed once the viewer has read the match's length
        assert marks.count() >= losses.count() > 0
        expect(page.locator("#score-chart-svg .analysis-chart-mark")).to_have_count(marks.count())
        expect(page.locator("#analysis-summary")).to_contain_text("The biggest losses:")
        step = (losses.first.text_content() or "").split()[-1]
        losses.first.click()
        expect(page.locator("#board")).to_have_attribute("data-step", step)
        table = page.locator("#analysis-options-table")
        expect(table).to_contain_text(f"Step {step}: each option played out")
        expect(table.locator("tr.played")).to_have_count(1)
        expect(table.locator("tbody tr")).not_to_have_count(0)
        # The settled layout (the board and chart redraw after the jump) does not scroll sideways.
        # Polled by evaluate (the debugging protocol): wait_for_function compiles its string in the page, which the
        # pages' Content-Security-Policy (no unsafe-eval) refuses now and then.
        widths = [0, 0]
        for _ in range(100):
            widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if widths[0] <= widths[1]:
                break
            page.wait_for_timeout(100)
        wide = "" if widths[0] <= widths[1] else page.evaluate(WIDEST)
        assert widths[0] <= widths[1], f"the page scrolls sideways: {widths[0]} px of content in {widths[1]} px: {wide}"
        check_a11y(page)
        screenshot(page, f"analysis-strip-{size}")
    context.close()
