"""Keyboard only, no clicks: the replay viewer and its score chart, the "Branch from here" form and the analysis form,
driven with Tab, Shift+Tab, Enter, space and the arrow keys at 1440x900 and 390x844. Every control the keys reach on
the way shows a focus ring (a computed outline or box-shadow); axe clean in light and dark."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_matches import play_match, short_evolution
from e2e_pages import log_in
from playwright.sync_api import expect

from replays.models import Replay
from tournaments.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"desk": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}

FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
  return {what: name + ' ' + (el.textContent || '').trim().slice(0, 30), ring: outline || style.boxShadow !== 'none'};
}"""


class Keys:
    """A keyboard user: moves the focus with Tab or Shift+Tab and notes each control it lands on without a ring."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.unringed: list[str] = []

    def tab_to(self, selector: str, back: bool = False, presses: int = 80) -> None:
        """Press Tab (Shift+Tab) until the focus is on `selector`; fails if it never gets there."""
        for _ in range(presses):
            self.page.keyboard.press("Shift+Tab" if back else "Tab")
            at = self.page.evaluate(FOCUSED)
            if at and not at["ring"]:
                self.unringed.append(at["what"])
            if self.page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"{'Shift+' if back else ''}Tab never reached {selector} in {presses} presses")

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)


@pytest.fixture(params=sorted(SIZES))
def sized(request: Any, browser: Any, live_server: Any, problems: Any) -> Iterator[tuple[str, Any]]:
    context = browser.new_context(base_url=live_server.url, viewport=SIZES[request.param])
    page = context.new_page()
    problems.watch(page)
    yield request.param, page
    context.close()


def light_and_dark(page: Any, check_a11y: Any) -> None:
    check_a11y(page)
    page.emulate_media(color_scheme="dark")
    check_a11y(page)
    page.emulate_media(color_scheme="light")


def test_the_viewer_and_its_score_chart_work_from_the_keyboard(sized: tuple[str, Any], check_a11y: Any,
                                                               screenshot: Any) -> None:
    size, page = sized
    match = play_match("marine", 2)
    last = len(Replay.objects.get(match=match).action_log())
    page.goto(f"/replays/{match.pk}/#step=10")
    board, keys = page.locator("#board"), Keys(page)
    expect(board).to_have_attribute("data-step", "10")
    keys.tab_to("#btn-next")
    keys.press("Enter")
    expect(board).to_have_attribute("data-step", "11")
    keys.tab_to("#btn-prev", back=True)
    keys.press("Enter")
    expect(board).to_have_attribute("data-step", "10")
    keys.tab_to("#scrub")
    keys.press("ArrowRight", "ArrowRight")
    expect(board).to_have_attribute("data-step", "12")
    keys.tab_to("#speed")
    keys.press("ArrowDown")
    expect(page.locator("#speed")).to_have_value("250")
    keys.tab_to("#jump")
    keys.press("Control+a", "5", "Enter")
    expect(board).to_have_attribute("data-step", "5")

    # The score chart: focused, its marker stands at the shown step; the arrows move it, Enter goes there.
    tip, said = page.locator("#score-tip"), page.locator("#score-said")
    keys.tab_to("#score-chart-svg")
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("Step 5")
    keys.press("ArrowLeft", "ArrowLeft")
    expect(tip).to_contain_text("Step 3")
    expect(said).to_have_text(re.compile(r"^Step 3, Seat 1: \d+ \w+, Seat 2: \d+ \w+$"))
    expect(board).to_have_attribute("data-step", "5")  # the marker moves, the game stays
    expect(page.locator("#score-chart .hover")).to_have_attribute("visibility", "visible")
    keys.press(*["ArrowRight"] * 5)  # past the shown step: not watched yet, so no scores
    expect(said).to_have_text("Step 8, not shown yet (Show result)")
    keys.press("Enter")
    expect(board).to_have_attribute("data-step", "8")
    expect(said).to_have_text(re.compile(r"^Step 8, Seat 1: \d+ \w+, Seat 2: \d+ \w+$"))  # redrawn, marker kept
    keys.press("Home")
    expect(tip).to_contain_text("Step 0")
    expect(board).to_have_attribute("data-step", "8")
    keys.press("PageUp", "PageUp", "ArrowLeft")
    expect(said).to_have_text(re.compile(r"^Step 19, "))
    keys.press("End")  # not watched to its end: the marker goes there, the scores stay hidden
    expect(said).to_have_text(f"Step {last}, not shown yet (Show result)")
    keys.press("Home", "PageUp", "ArrowDown", "ArrowDown", "ArrowDown")
    expect(said).to_have_text(re.compile(r"^Step 7, Seat 1: "))
    light_and_dark(page, check_a11y)
    screenshot(page, f"viewer-chart-keyboard-{size}")
    keys.press(" ")  # space goes there too, and does not play
    expect(board).to_have_attribute("data-step", "7")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Play")
    keys.tab_to("#view-select", back=True)  # leaving the chart takes the marker away
    expect(tip).to_be_hidden()

    keys.tab_to("#btn-play", back=True)
    keys.press("Enter")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Pause")
    keys.press("Enter")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Play")
    keys.tab_to("#show-result", back=True)
    keys.press(" ")
    expect(page.locator("#show-result")).to_be_checked()
    expect(page.locator("#seat-list .result").first).to_be_visible()
    keys.tab_to("#eventlog")
    keys.press("End")
    expect(board).to_have_attribute("data-step", str(last))
    expect(page.locator("#final-panel")).to_be_visible()
    assert keys.unringed == [], f"no focus ring on: {keys.unringed}"


def test_branch_from_here_works_from_the_keyboard(sized: tuple[str, Any], charlie: Any, embedded_runner_stopped: None,
                                                  check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    parent = play_match("marine", 2)
    log_in(page, "charlie", "charlie-password-1")
    page.goto(f"/replays/{parent.pk}/#step=20")
    expect(page.locator("#board")).to_have_attribute("data-step", "20")
    keys = Keys(page)
    keys.tab_to("#branch-panel summary")
    keys.press(" ")  # a summary opens with space as with Enter (the viewer's space plays elsewhere)
    expect(page.locator("#branch-panel")).to_have_attribute("open", "")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Play")
    keys.tab_to("#branch-seat-1")
    keys.press("ArrowDown")
    expect(page.locator("#branch-seat-1")).to_have_value("greedy")  # the first bot after "keep random"
    keys.tab_to("#branch-force")
    keys.press("ArrowDown")
    forced = page.locator("#branch-force").input_value()
    assert forced != ""
    keys.tab_to("#branch-resample")
    keys.press(" ")
    expect(page.locator("#branch-resample")).to_be_checked()
    keys.tab_to("#branch-games")
    light_and_dark(page, check_a11y)
    screenshot(page, f"branch-form-keyboard-{size}")
    keys.tab_to("#branch-submit")
    keys.press("Enter")
    expect(page).to_have_url(re.compile(r"/replays/\d+/compare/$"))
    expect(page.locator("#branch-point")).to_contain_text(f"then plays option #{forced} as step 20")
    child = Match.objects.get(parent=parent)
    assert child.branch_step == 20 and parent.seats.get(number=1).bot_version.bot.name == "random"
    assert child.seats.get(number=1).bot_version.bot.name == "greedy"
    assert keys.unringed == [], f"no focus ring on: {keys.unringed}"


def test_the_analysis_form_works_from_the_keyboard(sized: tuple[str, Any], charlie: Any,
                                                   embedded_runner_stopped: None, check_a11y: Any) -> None:
    size, page = sized
    match = short_evolution(charlie)
    log_in(page, "charlie", "charlie-password-1")
    page.goto(f"/replays/{match.pk}/")
    expect(page.locator("#analysis-status")).to_contain_text("has not been analysed yet")
    keys = Keys(page)
    keys.tab_to("#analysis-seat")
    keys.press("ArrowDown")
    expect(page.locator("#analysis-seat")).to_have_value("2")
    expect(page.locator("#analysis-status")).to_contain_text("Seat 2 has not been analysed yet")
    keys.tab_to("#analysis-games")
    keys.press("Control+a", "3")
    keys.tab_to("#analysis-ask")
    light_and_dark(page, check_a11y)
    keys.press("Enter")
    expect(page.locator("#analysis-status")).to_contain_text("Seat 2 by greedy, 3 games per option")
    keys.tab_to("#analysis-seat", back=True)
    assert keys.unringed == [], f"no focus ring on: {keys.unringed}"
