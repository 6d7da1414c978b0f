"""The replay viewer over real matches: open, step with keys, scrub to the end, seat views, play, download."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from e2e_matches import entrants, schedule
from playwright.sync_api import expect

from replays.format import decode_replay
from replays.models import Replay
from tournaments.models import Bot, BotVersion, Match
from workers.runner import run_match

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def open_viewer(page: Any, match: Match) -> int:
    """Open the match's viewer; return the last step once the first frame is drawn."""
    page.goto(f"/replays/{match.pk}/")
    last = Replay.objects.get(match=match).document()["actions"].__len__()
    expect(page.locator("#step-counter")).to_have_text(f"0 / {last}")
    expect(page.locator("#board")).to_have_attribute("data-step", "0")
    return last


def step_shown(page: Any, step: int, last: int) -> None:
    expect(page.locator("#step-counter")).to_have_text(f"{step} / {last}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(step))


def test_it_opens_a_replay_and_steps_with_the_keys(page: Any, play: Any, check_a11y: Any) -> None:
    match = play("evolution", 3)
    last = open_viewer(page, match)
    expect(page.locator(".player")).to_have_count(3)
    check_a11y(page)
    for step in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        step_shown(page, step, last)
    page.keyboard.press("ArrowLeft")
    step_shown(page, 2, last)
    # The decision that led here: its options, the chosen one highlighted, the time taken.
    expect(page.locator("#decision .options li.chosen")).to_have_count(1)
    expect(page.locator("#decision")).to_contain_text(" ms")
    expect(page.locator("#eventlog > li[data-step='2']")).to_have_class(re.compile(r"\bcurrent\b"))
    expect(page.locator("#eventlog > li[data-step='3']")).to_be_hidden()
    page.keyboard.press("End")
    step_shown(page, last, last)
    page.keyboard.press("Home")
    step_shown(page, 0, last)
    page.fill("#jump", "7")
    page.click("#jump-form button")
    step_shown(page, 7, last)
    page.locator("#eventlog > li[data-step='4'] button.step").click()
    step_shown(page, 4, last)
    check_a11y(page)


@pytest.mark.parametrize(("game", "players"), [("evolution", 3), ("marine", 2)])
def test_it_scrubs_to_the_end_where_the_scores_match_the_outcome(
    page: Any, play: Any, check_a11y: Any, screenshot: Any, game: str, players: int
) -> None:
    match = play(game, players)
    last = open_viewer(page, match)
    screenshot(page, f"{game}-start")
    middle = last // 2
    page.locator("#scrub").fill(str(middle))
    step_shown(page, middle, last)
    screenshot(page, f"{game}-middle")
    page.locator("#scrub").fill(str(last))
    step_shown(page, last, last)
    expect(page.locator("#final-panel")).to_be_visible()
    for seat in match.seats.order_by("number"):
        final = page.locator(f"#final-scores [data-seat='{seat.number}']")
        expect(final).to_have_attribute("data-score", str(seat.score))
        expect(final).to_have_attribute("data-rank", str(seat.rank))
        board_score = page.locator(f"#board [data-seat='{seat.number}'] .player-score")
        expect(board_score).to_have_attribute("data-score", str(seat.score))
    expect(page.locator("#decision")).to_contain_text("Game over.")
    check_a11y(page)
    screenshot(page, f"{game}-end")


def test_a_seat_view_shows_its_own_hand_and_hides_the_others(page: Any, play: Any, check_a11y: Any) -> None:
    match = play("evolution", 3)
    last = open_viewer(page, match)
    options = page.locator("#view-select option")
    expect(options).to_have_count(5)  # three seats, the public view, and the omniscient view of a finished match
    page.fill("#jump", "5")
    page.click("#jump-form button")
    step_shown(page, 5, last)
    for seat in (0, 1):
        page.select_option("#view-select", str(seat))
        expect(page.locator("#board")).to_have_attribute("data-view", str(seat))
        own = page.locator(f"[data-hand-seat='{seat}']")
        expect(own).to_have_class(re.compile(r"\bhand-shown\b"))
        expect(own.locator(".tcard").first).to_be_visible()
        for other in {0, 1, 2} - {seat}:
            hidden = page.locator(f"[data-hand-seat='{other}']")
            expect(hidden).to_have_class(re.compile(r"\bhand-hidden\b"))
            expect(hidden.locator(".tcard")).to_have_count(0)
            expect(hidden).to_contain_text("in hand (hidden)")
    step_shown(page, 5, last)
    check_a11y(page)
    page.select_option("#view-select", "omniscient")
    expect(page.locator(".hand-hidden")).to_have_count(0)


def test_it_plays_and_pauses_and_downloads_the_replay(page: Any, play: Any) -> None:
    match = play("marine", 2)
    last = open_viewer(page, match)
    page.select_option("#speed", "30")
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Pause")
    expect(page.locator("#step-counter")).not_to_have_text(f"0 / {last}")
    page.keyboard.press("Space")
    expect(page.locator("#btn-play")).to_have_attribute("aria-label", "Play")
    paused_at = page.locator("#board").get_attribute("data-step")
    expect(page.locator("#step-counter")).to_have_text(re.compile(rf"^{paused_at} / {last}$"))
    with page.expect_download() as download:
        page.click("#download")
    data = open(download.value.path(), "rb").read()
    assert decode_replay(data) == Replay.objects.get(match=match).document()


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")
def test_faults_are_marked_in_the_log_and_the_decision(page: Any, alice: Any) -> None:
    source = (ROOT / "tests" / "tournaments" / "fixtures" / "out_of_range.py").read_bytes()
    bot = Bot.objects.create(owner=alice, name="out-of-range", game="evolution")
    faulty = BotVersion.objects.create(bot=bot, number=1, source=source, filename="bot.py",
                                       status=BotVersion.Status.ACTIVE)
    _, matches = schedule("evolution", 3, versions=[faulty, *entrants(2)])
    match = matches[0]
    assert run_match(match.pk) == "finished"  # the upload plays in the real sandbox
    seat = match.seats.get(bot_version=faulty)
    seat.refresh_from_db()
    assert seat.faults and seat.forfeited
    last = open_viewer(page, match)
    page.keyboard.press("End")
    step_shown(page, last, last)
    fault = page.locator("#eventlog > li", has=page.locator(".faulty")).first
    expect(fault).to_contain_text("fault: out of range")
    step = int(fault.get_attribute("data-step") or 0)
    fault.locator("button.step").click()
    step_shown(page, step, last)
    expect(page.locator("#decision-fault")).to_contain_text("Fault: out of range")
    chosen = page.locator("#decision .options li.chosen")
    expect(chosen).to_have_attribute("data-option", "0")  # the default, numbered from 1 on the page
    expect(chosen).to_have_text(re.compile(r"^1\. "))
