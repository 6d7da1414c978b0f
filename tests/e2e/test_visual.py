"""Visual faults once found on the pages, each checked in Chromium at 1440x900 and 390x844, with screenshots."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_matches import ladder_match, play_match
from playwright.sync_api import expect

from replays.models import Replay
from tournaments.models import Match

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(SIZES))
def sized(request: Any, browser: Any, live_server: Any, problems: Any) -> Iterator[tuple[str, Any]]:
    """A page at each of the two sizes (the name, the page); fails on console errors like `page`."""
    context = browser.new_context(base_url=live_server.url, viewport=SIZES[request.param],
                                  is_mobile=request.param == "phone", has_touch=request.param == "phone")
    page = context.new_page()
    problems.watch(page)
    yield request.param, page
    context.close()
    assert problems.errors == [], "\n".join(problems.errors)


def open_at(page: Any, match: Match, step: int) -> None:
    page.goto(f"/replays/{match.pk}/#step={step}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(step))


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{page.url} is {width}px wide"


WORDS_BROKEN = """() => {
  const broken = [];
  for (const node of document.querySelectorAll('.tcard strong')) {
    const text = node.firstChild; if (!text) continue;
    const re = /\\S+/g; let m;
    while ((m = re.exec(text.textContent))) {
      const range = document.createRange(); range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
      if (range.getClientRects().length > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


def test_evolution_reads_right_at_both_sizes(sized: tuple[str, Any], check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    match = play_match("evolution", 3)
    open_at(page, match, 3)
    assert page.evaluate(WORDS_BROKEN) == []  # "Intelligence", never "Intelligenc/e"
    # The glow marks the seat whose decision the panel shows; the seat to play next is tagged, not glowing.
    decided = Replay.objects.get(match=match).action_log()[2]["seat"]
    expect(page.locator(".player.active")).to_have_attribute("data-seat", str(decided))
    expect(page.locator(".player.active .seat-tag")).to_have_text("just played")
    expect(page.locator("#decision p").first).to_contain_text(f"Seat {decided + 1}")
    expect(page.locator(".player.next .seat-tag.next")).to_have_text("to play")
    # Scores: "1 point", never "1 pts".
    for text in page.locator(".player-score").all_inner_texts():
        assert re.fullmatch(r"1 point|\d+ points", text), text
    no_sideways_scroll(page)
    check_a11y(page)
    screenshot(page, f"visual-evolution-{size}")
    screenshot(page, f"visual-evolution-top-{size}", full_page=False)


def test_marine_vp_track_keeps_its_scale_and_labels_apart(sized: tuple[str, Any], check_a11y: Any,
                                                          screenshot: Any) -> None:
    size, page = sized
    match = play_match("marine", 4)
    last = len(Replay.objects.get(match=match).action_log())
    open_at(page, match, 0)
    top = page.locator(".vp-svg").get_attribute("data-top")
    overlaps = """() => {
      const boxes = [...document.querySelectorAll('.vp-marker text')].map(t => t.getBoundingClientRect());
      let n = 0;
      boxes.forEach((a, i) => boxes.slice(i + 1).forEach(b => {
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) n++; }));
      return n;
    }"""
    assert page.evaluate(overlaps) == 0  # all four seats at 0: four lanes
    for step in (last // 3, 2 * last // 3, last):
        open_at(page, match, step)
        assert page.locator(".vp-svg").get_attribute("data-top") == top  # the axis never rescales
        assert page.evaluate(overlaps) == 0
        heights = page.evaluate("[...document.querySelectorAll('.vp-marker text')]"
                                ".map(t => t.getBoundingClientRect().height)")
        assert min(heights) >= 11, heights  # legible on a phone too
    expect(page.locator("#final-scores .score").first).to_contain_text("VP")
    assert "point" not in page.locator("#final-scores").inner_text()
    no_sideways_scroll(page)
    check_a11y(page)
    screenshot(page, f"visual-marine-{size}")
    screenshot(page.locator(".vptrack-box"), f"visual-marine-vptrack-{size}")


def test_space_plays_and_pauses_whatever_had_the_focus(page: Any) -> None:
    match = play_match("marine", 2)
    open_at(page, match, 0)
    page.select_option("#speed", "1000")
    page.click("#btn-next")
    expect(page.locator("#board")).to_have_attribute("data-step", "1")
    page.keyboard.press("Space")  # the Next button has the focus: Space still plays
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Pause")
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Play")
    page.locator("#scrub").focus()
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Pause")
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Play")


def test_pages_fit_a_phone_and_cue_their_sideways_scroll(sized: tuple[str, Any], check_a11y: Any,
                                                        screenshot: Any) -> None:
    size, page = sized
    match = ladder_match("evolution", 3)
    page.goto("/matches/")
    no_sideways_scroll(page)
    check_a11y(page)
    screenshot(page, f"visual-matches-{size}")
    page.goto(f"/ladders/{match.ladder_id}/")
    expect(page.locator("th.greek").first).to_have_text("μ")  # innerText applies text-transform: not "Μ"
    no_sideways_scroll(page)
    wrap = page.locator(".table-wrap").first
    if size == "phone":
        expect(wrap).to_have_class(re.compile(r"\boverflows\b"))
        expect(page.locator(".scroll-hint").first).to_have_text("Scroll sideways for more →")
    else:
        expect(wrap).not_to_have_class(re.compile(r"\boverflows\b"))
    check_a11y(page)
    screenshot(page, f"visual-ladder-{size}")


RAW = re.compile(r"[\[{]\"|\btrue\b|\bfalse\b|—\s*\w+ \w+ \d|\w+_\w+")  # JSON, booleans, "key value" dumps, snake_case


@pytest.mark.parametrize(("game", "players"), [("evolution", 3), ("marine", 3)])
def test_the_event_log_reads_in_plain_words_and_the_board_marks_what_changed(
    page: Any, check_a11y: Any, screenshot: Any, game: str, players: int
) -> None:
    match = play_match(game, players)
    last = len(Replay.objects.get(match=match).action_log())
    open_at(page, match, last)
    lines = page.locator("#eventlog ul li").all_inner_texts()
    assert lines, "no events"
    raw = [line for line in lines if RAW.search(line)]
    assert raw == [], raw[:10]
    assert not [line for line in lines if re.search(r"\bspecies 0\b|\bseat 0\b|Seat 0\b", line)]  # 1-based
    if game == "marine":
        labels = page.locator(".tile .hex-label").all_text_contents()
        assert labels and all(re.fullmatch(r"-?\d+,-?\d+", label) for label in labels)
        moved = next(line for line in lines if "adds a" in line)  # "adds a Kelp Forest tile at (-3, 0)"
        q, r = re.search(r"\((-?\d+), (-?\d+)\)", moved).groups()  # type: ignore[union-attr]
        assert f"{q},{r}" in labels
    # The last action's changes are marked: step through a few and find some marked.
    marked = 0
    for step in range(20, 40):
        open_at(page, match, step)
        marked += page.locator(".changed").count()
    assert marked
    check_a11y(page)
    screenshot(page, f"visual-{game}-changed")


def test_the_score_chart_under_the_scrubber_goes_to_the_step_clicked(page: Any, check_a11y: Any) -> None:
    match = play_match("marine", 2)
    last = len(Replay.objects.get(match=match).action_log())
    open_at(page, match, 0)
    chart = page.locator("#score-chart svg")
    expect(chart.locator("polyline")).to_have_count(2)
    box = chart.bounding_box()
    chart.click(position={"x": box["width"] * 0.75, "y": box["height"] / 2})
    expect(page.locator("#board")).not_to_have_attribute("data-step", "0")
    step = int(page.locator("#board").get_attribute("data-step") or 0)
    assert abs(step - round(last * 0.75)) <= max(2, last // 50), (step, last)
    expect(page.locator("#step-counter")).to_have_text(f"{step} / {last}")
    check_a11y(page)


def test_the_viewer_links_the_rules_of_its_game(sized: tuple[str, Any], check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    match = play_match("marine", 2)
    open_at(page, match, 0)
    page.click("#rules-link")
    expect(page).to_have_url(re.compile(r"/rules/marine/$"))
    expect(page.locator("article.rules h1")).to_be_visible()
    no_sideways_scroll(page)
    check_a11y(page)
    screenshot(page, f"rules-marine-{size}")


@pytest.mark.parametrize(("game", "players"), [("evolution", 3), ("marine", 2)])
def test_dark_mode_follows_the_system_and_stays_readable(browser: Any, live_server: Any, problems: Any,
                                                         check_a11y: Any, screenshot: Any, game: str,
                                                         players: int) -> None:
    context = browser.new_context(base_url=live_server.url, viewport=SIZES["desktop"], color_scheme="dark")
    page = context.new_page()
    problems.watch(page)
    try:
        match = play_match(game, players)
        open_at(page, match, 30)
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(11, 17, 32)"
        check_a11y(page)  # contrast included
        screenshot(page, f"dark-{game}")
        page.goto(f"/tournaments/{match.tournament_id}/")
        check_a11y(page)
        page.goto("/")
        check_a11y(page)
    finally:
        context.close()
    assert problems.errors == [], "\n".join(problems.errors)
