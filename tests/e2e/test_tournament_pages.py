"""The pages of issue 34 in a browser, at 1440x900 and 390x844 (and dark where colour is the point): the round
robin's cross-table and its links to the sets, the bracket's set scores and lines, the ladder's next round, the
sign-up form, the rules pages and a rejected version's validation log; all axe-clean, screenshots in
artifacts/screenshots/."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_matches import entrants
from playwright.sync_api import expect

from tournaments import ladder_clock
from tournaments.ladders import join_ladder, schedule_ladder
from tournaments.models import Bot, BotVersion, Ladder, Match, Tournament
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = pytest.mark.django_db(transaction=True)
SIZES = {"desk": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=["desk", "phone"])
def sized(request: Any, page: Any) -> Iterator[tuple[str, Any]]:
    page.set_viewport_size(SIZES[request.param])
    yield request.param, page


def play_out(tournament: Tournament) -> None:
    start_tournament(tournament, enqueue=False)
    while (match := Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("pk").first()):
        assert run_match(match.pk) == "finished"


def fits(page: Any, size: str) -> None:
    """Nothing makes the page itself scroll sideways (wide tables scroll in their own box)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]


def test_a_round_robin_reads_as_a_cross_table_linked_to_its_sets(sized: tuple[str, Any], tinynim: Any,
                                                                  make_tournament: Any, check_a11y: Any,
                                                                  screenshot: Any) -> None:
    size, page = sized
    cup = make_tournament(entrants=("greedy", "random", "greedy-2", "random-2"), games_per_set=2, name="rr cup")
    play_out(cup)
    page.goto(f"/tournaments/{cup.pk}/")
    table = page.locator("table.cross")
    expect(table.locator("tbody tr")).to_have_count(4)
    expect(table.locator("td.self")).to_have_count(4)
    expect(table.locator("td a")).to_have_count(12)
    expect(page.locator("details.all-rounds")).not_to_have_attribute("open", re.compile(".*"))
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"cross-table-{size}")
    cell = table.locator("td a").first
    anchor = cell.get_attribute("href")
    cell.click()  # the set it links to opens out of the folded rounds
    target = page.locator(str(anchor))
    expect(target).to_be_visible()
    expect(target.locator(".game")).to_have_count(2)
    page.emulate_media(color_scheme="dark")
    check_a11y(page)
    screenshot(page, f"cross-table-{size}-dark")


def test_a_bracket_shows_set_scores_and_lines_between_rounds(sized: tuple[str, Any], tinynim: Any,
                                                             make_tournament: Any, check_a11y: Any,
                                                             screenshot: Any) -> None:
    size, page = sized
    cup = make_tournament(entrants=("greedy", "random", "greedy-2", "random-2"), format="single_elimination",
                          games_per_set=3, name="knockout cup")
    play_out(cup)
    page.goto(f"/tournaments/{cup.pk}/")
    sets = page.locator(".bracket ol.set")
    expect(sets).to_have_count(3)
    for i in range(3):
        first = sets.nth(i).locator("li").first
        expect(first).to_have_class("through")
        expect(first.locator(".wins")).to_have_text(re.compile(r"^[0-3]$"))
    line = "el => getComputedStyle(el, '::before').borderTopWidth"
    assert page.locator(".bracket .round").nth(1).locator(".table").first.evaluate(line) == "2px"
    assert page.locator(".bracket .round").nth(0).locator(".table").first.evaluate(line) == "0px"
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"bracket-sets-{size}")


def test_the_ladder_says_when_its_next_round_comes(sized: tuple[str, Any], check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    ladder = Ladder.objects.create(name="open marine", game="marine", players_per_match=2, is_open=True, max_queued=2,
                                   options={"length": "short", "max_rounds": 2})
    join_ladder(ladder, entrants(4))
    ladder_clock.cache.delete(ladder_clock.KEY)  # the live server shares this process's cache
    for _ in range(2):
        for match in schedule_ladder(ladder.pk, enqueue=False):
            assert run_match(match.pk) == "finished"
    page.goto(f"/ladders/{ladder.pk}/")
    expect(page.locator("#next-round")).to_have_text(re.compile(r"^No round has come lately"))
    ladder_clock.cache.set(ladder_clock.KEY, time.time() + 600, 900)  # a clock's round, as beat or the demo records it
    page.reload()
    expect(page.locator("#next-round")).to_have_text(re.compile(r"^Next round in about \d+ s \("))
    expect(page.locator("table.standings tbody tr")).to_have_count(4)
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"ladder-{size}")


def test_an_author_signs_up_in_the_browser(sized: tuple[str, Any], check_a11y: Any, screenshot: Any,
                                           django_user_model: Any) -> None:
    size, page = sized
    page.goto("/")
    page.get_by_role("link", name="Sign up").click()
    expect(page.locator("h1")).to_have_text("Sign up")
    check_a11y(page)
    page.fill("#id_username", f"newcomer-{size}")
    page.fill("#id_password1", "a fine long passphrase")
    page.fill("#id_password2", "a fine long passphrase with a typo")
    page.keyboard.press("Enter")
    expect(page.locator(".error")).to_contain_text("didn’t match")
    check_a11y(page)
    screenshot(page, f"signup-error-{size}")
    page.fill("#id_password1", "a fine long passphrase")
    page.fill("#id_password2", "a fine long passphrase")
    page.click("form.stack button[type=submit]")
    expect(page).to_have_url(re.compile(r"/upload/$"))
    expect(page.locator("header")).to_contain_text(f"Log out newcomer-{size}")
    assert django_user_model.objects.filter(username=f"newcomer-{size}", is_staff=False).exists()


@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_the_rules_read_as_a_summary_with_the_exact_rules_behind_a_link(sized: tuple[str, Any], game: str,
                                                                       check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    page.goto(f"/rules/{game}/")
    expect(page.locator("article.rules h2").first).to_have_text("How a round goes")
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"rules-summary-{game}-{size}")
    section = "Scoring" if game == "evolution" else "The end of the game"
    page.locator(".rules-contents a", has_text=section).first.click()
    expect(page).to_have_url(re.compile(rf"/rules/{game}/spec/#"))
    heading = page.locator(f"#{page.url.partition('#')[2]}")
    expect(heading).to_be_in_viewport()
    fits(page, size)
    check_a11y(page)


def test_a_rejected_versions_log_says_what_next(sized: tuple[str, Any], alice: Any, check_a11y: Any,
                                                screenshot: Any) -> None:
    size, page = sized
    bot = Bot.objects.create(owner=alice, name="hungry", game="evolution")
    log = ("Smoke match: evolution, 2 players, seed 7; your bot at seat 0 against greedy (built-in).\n"
           "Result: rank 2 of 2, score 3; the bot was asked 5 decision(s), 1 fault(s), forfeited.\n"
           "Faults (step, decision kind, code, detail; the viewer at that step):\n"
           "  step 3 (feed): died: exit status 1\n    http://127.0.0.1:8000/replays/9/#step=3&view=0\n"
           "Verdict: rejected: the bot forfeited the smoke match (it died, or faulted too often).\n"
           "Watch it: http://127.0.0.1:8000/replays/9/#view=0\n--- the bot's stderr ---\nhello\n[ludus] step 3\n"
           "Traceback (most recent call last):\n  File \"main.py\", line 3, in act\nKeyError: 'food'\n")
    version = BotVersion.objects.create(bot=bot, number=1, source=b"x", filename="hungry.py", validation_log=log,
                                        status=BotVersion.Status.REJECTED)
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "alice-password-1")
    page.click("form.stack button[type=submit]")
    page.goto(f"/versions/{version.pk}/")
    expect(page.locator(".vlog-faults a")).to_have_attribute("href", "/replays/9/#step=3&view=0")
    expect(page.locator(".vlog-next")).to_contain_text("manage.py try_bot hungry.py --game evolution")
    expect(page.locator(".vlog-stderr summary").last).to_contain_text("Step 3")
    expect(page.locator(".vlog-stderr pre").last).to_contain_text("KeyError: 'food'")
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"validation-log-{size}")
