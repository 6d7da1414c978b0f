"""The spectator's board (issue items on the viewer): options in the game's words marking the board, the score chart
without spoilers, faults on the cards and the step bar, the phone layout, whole names and seat cards, the Marine map's
labels and its dark mode. Each at 1440x900 and 390x844, on matches the real runner played."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_matches import entrants, play_match, schedule
from playwright.sync_api import expect

from replays.frames import frames
from replays.models import Replay
from tournaments.models import Bot, BotVersion, Match
from workers.runner import run_match

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


def new_page(browser: Any, live_server: Any, problems: Any, size: str, scheme: str = "light") -> tuple[Any, Any]:
    context = browser.new_context(base_url=live_server.url, viewport=SIZES[size], color_scheme=scheme,
                                  is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    problems.watch(page)
    return context, page


@pytest.fixture(params=sorted(SIZES))
def sized(request: Any, browser: Any, live_server: Any, problems: Any) -> Iterator[tuple[str, Any]]:
    context, page = new_page(browser, live_server, problems, request.param)
    yield request.param, page
    context.close()
    assert problems.errors == [], "\n".join(problems.errors)


def open_at(page: Any, match: Match, step: int) -> None:
    page.goto(f"/replays/{match.pk}/#step={step}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(step))


def first_step(match: Match, wanted: Any) -> tuple[int, dict[str, Any]]:
    """The first step whose deciding decision (omniscient) passes `wanted`, and that decision."""
    document = Replay.objects.get(match=match).document()
    for frame in frames(document):
        decision = frame["decision"]
        if decision and wanted(decision):
            return frame["step"] + 1, decision
    raise AssertionError("no such decision in the game")


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{page.url} is {width}px wide"


def pointed(option: Any) -> bool:
    """An option naming a place on the board: [species index, source] (Evolution), [[q, r], [q, r]] (Marine)."""
    return isinstance(option, list) and not isinstance(option[0], str)


SPILLS = """() => [...document.querySelectorAll('.player, .score')].filter(card => {
  const box = card.getBoundingClientRect();
  return [...card.querySelectorAll('*')].some(n => { const r = n.getBoundingClientRect();
    return r.right > box.right + 0.5 || r.left < box.left - 0.5; }); }).length"""  # seat cards whose text spills


RAW_OPTION = re.compile(r"[\[\]{}\"]|\w+_\w+|^\S+:\-?\d+$")  # JSON, snake_case, "Name:3" card codes


@pytest.mark.parametrize(("game", "players", "kind"), [("evolution", 3, "feed"), ("marine", 2, "move")])
def test_options_read_in_the_games_words_and_mark_what_they_touch(
    sized: tuple[str, Any], check_a11y: Any, screenshot: Any, game: str, players: int, kind: str
) -> None:
    size, page = sized
    match = play_match(game, players)
    step, decision = first_step(match, lambda d: d["kind"] == kind and any(pointed(o) for o in d["options"]))
    open_at(page, match, step)
    items = page.locator("#decision > ol.options > li")
    expect(items).to_have_count(len(decision["options"]))
    texts = items.all_inner_texts()
    assert [text.split(".")[0] for text in texts] == [str(i + 1) for i in range(len(texts))]  # numbered from 1
    assert not [t for t in texts if RAW_OPTION.search(t.split(". ", 1)[1].replace(" ← chosen", ""))], texts
    index = next(i for i, o in enumerate(decision["options"]) if pointed(o))
    option, item = decision["options"][index], items.nth(index)
    if game == "evolution":  # species counted from 1, as on the board and in the event log
        assert f"species {option[0] + 1}" in texts[index], texts[index]
    else:
        assert f"({option[0][0]}, {option[0][1]})" in texts[index], texts[index]
    marked = page.locator("#board .option-mark")
    expect(marked).to_have_count(0)
    item.hover()
    expect(marked.first).to_be_visible()
    if game == "evolution":
        species = page.locator(f"#board [data-seat='{decision['seat']}'] .species[data-index='{option[0]}']")
        expect(species).to_have_class(re.compile(r"\boption-mark\b"))
    else:
        for hex_ in option:
            expect(page.locator(f"#board .tile[data-hex='{hex_[0]},{hex_[1]}']")).to_have_class(
                re.compile(r"\boption-mark\b"))
    page.mouse.move(0, 0)
    expect(marked).to_have_count(0)
    item.focus()  # the keyboard marks too
    expect(marked.first).to_be_visible()
    item.evaluate("node => node.blur()")
    expect(marked).to_have_count(0)
    check_a11y(page)
    screenshot(page, f"viewer-options-{game}-{size}")


def test_the_score_chart_has_axes_a_legend_a_tooltip_and_hides_the_result_until_asked(
    sized: tuple[str, Any], check_a11y: Any, screenshot: Any
) -> None:
    size, page = sized
    match = play_match("marine", 2)
    last = len(Replay.objects.get(match=match).action_log())
    open_at(page, match, 10)
    chart = page.locator("#score-chart svg")
    expect(chart.locator("polyline")).to_have_count(2)
    # Not watched to its end: the lines stop at the shown step, the header keeps its ranks, the toggle is off.
    assert len(chart.locator("polyline").first.get_attribute("points").split()) == 11  # steps 0..10
    expect(page.locator("#show-result")).not_to_be_checked()
    expect(page.locator("#seat-list .result").first).to_be_hidden()
    expect(page.locator("#final-panel")).to_be_hidden()
    assert chart.locator("text.tick").count() >= 6 and chart.locator("line.axis").count() >= 2
    expect(chart.locator("text.axis-label")).to_have_text(["step", "VP"])
    legend = page.locator("#score-legend li")
    expect(legend).to_have_count(2)
    expect(legend.first).to_contain_text("Seat 1")
    expect(page.locator("#score-chart-now")).to_have_count(1)
    box = chart.bounding_box()
    chart.hover(position={"x": box["width"] * 0.1, "y": box["height"] / 2})
    expect(page.locator("#score-tip")).to_be_visible()
    expect(page.locator("#score-tip")).to_contain_text("Step")
    check_a11y(page)
    screenshot(page, f"viewer-chart-no-spoilers-{size}")
    page.locator("#show-result").check()
    assert len(chart.locator("polyline").first.get_attribute("points").split()) == last + 1
    expect(page.locator("#seat-list .result").first).to_be_visible()
    page.locator("#show-result").uncheck()
    expect(page.locator("#seat-list .result").first).to_be_hidden()
    page.click("#btn-last")  # watched to its end: the result shows, and stays shown on the next visit
    expect(page.locator("#final-panel")).to_be_visible()
    expect(page.locator("#show-result")).to_be_checked()
    open_at(page, match, 0)
    page.reload()
    expect(page.locator("#board")).to_have_attribute("data-step", "0")
    expect(page.locator("#show-result")).to_be_checked()
    expect(page.locator("#seat-list .result").first).to_be_visible()
    screenshot(page, f"viewer-chart-{size}")


def test_a_seat_view_scores_every_seat_by_one_rule(page: Any) -> None:
    match = play_match("evolution", 3)
    step, _ = first_step(match, lambda d: d["kind"] == "feed")
    open_at(page, match, step + 12)
    page.select_option("#view-select", "0")
    expect(page.locator("#board")).to_have_attribute("data-view", "0")
    expect(page.locator("#score-legend li")).to_have_count(3)
    for seat in range(3):
        board = page.locator(f"#board [data-seat='{seat}'] .player-score").get_attribute("data-score")
        expect(page.locator(f"#score-legend li[data-seat='{seat}'] strong")).to_have_text(re.compile(rf"^{board} "))
    assert "bags are hidden" in (page.locator("#board [data-seat='0'] .player-score").get_attribute("title") or "")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")
def test_a_faulty_seat_is_marked_on_its_card_and_the_step_bar_with_a_jump_to_each_fault(
    sized: tuple[str, Any], alice: Any, check_a11y: Any, screenshot: Any
) -> None:
    size, page = sized
    source = (ROOT / "tests" / "tournaments" / "fixtures" / "out_of_range.py").read_bytes()
    bot = Bot.objects.create(owner=alice, name="out-of-range", game="evolution")
    faulty = BotVersion.objects.create(bot=bot, number=1, source=source, filename="bot.py",
                                       status=BotVersion.Status.ACTIVE)
    _, matches = schedule("evolution", 3, versions=[faulty, *entrants(2)])
    assert run_match(matches[0].pk) == "finished"
    match = matches[0]
    seat = match.seats.get(bot_version=faulty).number
    actions = Replay.objects.get(match=match).action_log()
    faults = [i + 1 for i, record in enumerate(actions) if record.get("fault")]
    assert len(faults) == 3, faults  # the third forfeits (max_faults)
    open_at(page, match, 0)
    card = page.locator(f"#board .player[data-seat='{seat}']")
    expect(card.locator(".seat-tag.fault")).to_have_count(0)  # nothing yet at step 0
    expect(page.locator("#step-marks .fault-mark")).to_have_count(3)
    expect(page.locator(f"#step-marks .forfeit-bar[data-seat='{seat}']")).to_have_count(1)
    for step in faults:
        page.click("#btn-next-fault")
        expect(page.locator("#board")).to_have_attribute("data-step", str(step))
    expect(card.locator(".seat-tag.fault")).to_have_text(
        f"forfeited at step {faults[-1]} (out of range): plays the default")
    expect(card).to_have_class(re.compile(r"\bforfeited\b"))
    page.keyboard.press("f")  # the key wraps round to the first fault
    expect(page.locator("#board")).to_have_attribute("data-step", str(faults[0]))
    expect(card.locator(".seat-tag.fault")).to_have_text("1 fault (out of range)")
    assert page.evaluate(SPILLS) == 0  # "just played", "to play" and the fault tag wrap inside the card
    check_a11y(page)
    screenshot(page, f"viewer-crashed-seat-{size}")


def test_on_a_phone_the_controls_stay_and_the_board_comes_first(sized: tuple[str, Any], check_a11y: Any,
                                                                 screenshot: Any) -> None:
    size, page = sized
    match = play_match("evolution", 3)
    open_at(page, match, 5)
    height = page.viewport_size["height"]
    assert page.locator("#board").bounding_box()["y"] < height * 0.8  # the board starts on the first screen
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert page.evaluate("window.scrollY") > 300
    bar = page.locator("#controls").bounding_box()
    assert 0 <= bar["y"] < 5, bar  # stuck to the top of the screen
    expect(page.locator("#btn-next")).to_be_in_viewport()
    expect(page.locator("#decision-line")).to_be_in_viewport()
    expect(page.locator("#decision-line")).to_contain_text("Seat ")
    page.click("#btn-next")
    expect(page.locator("#board")).to_have_attribute("data-step", "6")
    page.evaluate("window.scrollTo(0, 0)")
    page.keyboard.press("End")
    expect(page.locator("#final-panel")).to_be_visible()
    ranks = [int(r) for r in page.locator("#final-scores .score").evaluate_all("n => n.map(e => e.dataset.rank)")]
    assert ranks == sorted(ranks)  # the winner first
    no_sideways_scroll(page)
    check_a11y(page)
    screenshot(page, f"viewer-evolution-end-{size}")


def test_names_stay_whole_and_seat_cards_fit_with_four_to_six_seats(sized: tuple[str, Any], screenshot: Any) -> None:
    size, page = sized
    for players in (4, 6):
        match = play_match("evolution", players, seed=players)
        open_at(page, match, 3)
        broken = page.evaluate("""() => [...document.querySelectorAll('.bot-name')]
            .filter(n => n.getClientRects().length > 1).map(n => n.textContent)""")
        assert broken == [], broken  # "(greedy-2@1)" never as "(greedy-/2@1)"
        assert page.evaluate(SPILLS) == 0
        tops = page.locator(".player").evaluate_all("n => n.map(e => Math.round(e.getBoundingClientRect().top))")
        per_row = [tops.count(top) for top in sorted(set(tops), key=tops.index)]
        if size == "desktop":
            assert per_row == ([2, 2] if players == 4 else [3, 3]), per_row  # no seat alone below the others
        else:
            assert set(per_row) == {1}, per_row
        no_sideways_scroll(page)
        screenshot(page, f"viewer-evolution-{players}-seats-{size}")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_marine_map_fits_keeps_its_coordinates_clear_and_follows_dark_mode(
    browser: Any, live_server: Any, problems: Any, check_a11y: Any, screenshot: Any, scheme: str
) -> None:
    match = play_match("marine", 4)
    last = len(Replay.objects.get(match=match).action_log())
    for size in sorted(SIZES):
        context, page = new_page(browser, live_server, problems, size, scheme)
        try:
            open_at(page, match, last)
            earth, board = page.locator(".earth svg").bounding_box(), page.locator("#board").bounding_box()
            assert earth["width"] <= board["width"], (earth, board)  # the whole map, no sideways scroll
            covered = page.evaluate("""() => {
              const discs = [...document.querySelectorAll('.element circle')].map(c => c.getBoundingClientRect());
              return [...document.querySelectorAll('.hex-label')].filter(t => { const a = t.getBoundingClientRect();
                return discs.some(b => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom);
              }).map(t => t.textContent); }""")
            assert covered == [], covered
            ground = page.evaluate("getComputedStyle(document.querySelector('.earth svg')).backgroundColor")
            track = page.evaluate("getComputedStyle(document.querySelector('.vp-svg .track')).fill")
            if scheme == "dark":
                assert (ground, track) == ("rgb(11, 17, 32)", "rgb(51, 65, 85)")
            else:
                assert (ground, track) == ("rgb(239, 246, 255)", "rgb(226, 232, 240)")
            no_sideways_scroll(page)
            check_a11y(page)
            screenshot(page, f"viewer-marine-end-{scheme}-{size}")
        finally:
            context.close()
    assert problems.errors == [], "\n".join(problems.errors)
