"""The pages in a browser: home, standings, rounds, match lists, bot pages; all pass axe, none logs an error."""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2e_matches import ladder_match, schedule
from playwright.sync_api import expect

from tournaments.models import Match
from workers.runner import run_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_standings_reflect_a_finished_match(page: Any, check_a11y: Any) -> None:
    tournament, matches = schedule("marine", 2)
    page.goto(f"/tournaments/{tournament.pk}/")
    rows = page.locator("table.standings tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("table.standings .badge", has_text="provisional")).to_have_count(2)
    expect(page.locator(".round .table .status")).to_have_text(["queued"])
    check_a11y(page)

    assert run_match(matches[0].pk) == "finished"
    seats = {seat.rank: seat for seat in Match.objects.get(pk=matches[0].pk).seats.select_related("bot_version__bot")}
    page.reload()
    winner, loser = seats[1], seats[2]
    first = rows.nth(0)
    expect(first).to_contain_text(winner.bot_version.label)
    expect(first.locator("td").nth(2)).to_have_text("1")  # games
    expect(first.locator("td").nth(3)).to_have_text("1")  # wins
    expect(first.locator("td").nth(4)).to_have_text("1")  # points: one opponent beaten
    expect(rows.nth(1)).to_contain_text(loser.bot_version.label)
    expect(rows.nth(1).locator("td").nth(3)).to_have_text("0")
    expect(page.locator(f".fairness li.seat-{winner.number}").first).to_contain_text("1 / 1 won")
    expect(page.locator(f".fairness li.seat-{loser.number}").first).to_contain_text("0 / 1 won")
    expect(page.locator(".round .table .status")).to_have_text(["finished"])
    check_a11y(page)


def test_every_page_reads_well_and_links_up(page: Any, play: Any, check_a11y: Any) -> None:
    evolution = play("evolution", 3)
    marine = play("marine", 2, seed=9)
    page.goto("/")
    expect(page.locator("h1")).to_have_text("Ludus")
    expect(page.locator("#games-h + ul li")).to_have_count(2)
    expect(page.locator("table.matches tbody tr")).to_have_count(2)
    check_a11y(page)

    page.get_by_role("link", name="evolution cup").first.click()
    expect(page).to_have_url(re.compile(rf"/tournaments/{evolution.tournament_id}/$"))
    expect(page.locator("#rounds-h")).to_have_text("Rounds")

    page.goto("/matches/")
    expect(page.locator("table.matches tbody tr")).to_have_count(2)
    check_a11y(page)
    page.select_option("#id_game", "marine")
    page.click("form.filters button[type=submit]")
    expect(page.locator("table.matches tbody tr")).to_have_count(1)
    expect(page.locator("table.matches tbody tr")).to_contain_text(f"#{marine.pk}")
    page.goto("/matches/?status=queued")
    expect(page.locator("table.matches")).to_have_count(0)
    seat = evolution.seats.select_related("bot_version__bot").get(number=0)
    page.goto(f"/matches/?bot={seat.bot_version.bot.name}&competition=tournament:{evolution.tournament_id}")
    expect(page.locator("table.matches tbody tr")).to_have_count(1)

    page.goto(f"/bots/{seat.bot_version.bot_id}/")
    expect(page.locator("h1")).to_contain_text(seat.bot_version.bot.name)
    expect(page.locator("svg.chart polyline")).to_have_count(1)
    expect(page.locator("svg.chart title")).to_contain_text("Rating history")
    expect(page.locator("dl.stats dd").first).to_have_text("1")
    check_a11y(page)

    page.goto("/accounts/login/")
    check_a11y(page)


def test_the_pages_fit_a_phone(browser: Any, live_server: Any, play: Any, problems: Any, check_a11y: Any,
                               screenshot: Any) -> None:
    evolution, marine = play("evolution", 3), play("marine", 2)
    context = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844},
                                  device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    problems.watch(page)
    try:
        for path, name in (("/", None), (f"/replays/{evolution.pk}/", "evolution-phone"),
                           (f"/replays/{marine.pk}/", "marine-phone"), (f"/tournaments/{marine.tournament_id}/", None)):
            page.goto(path)
            if name:
                expect(page.locator("#board")).to_have_attribute("data-step", "0")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{path} scrolls sideways on a phone: {width}px"
            check_a11y(page)
            if name:
                screenshot(page, name)
        # At its end Marine's earth fits a phone's width: nothing of it hides behind a sideways scroll.
        page.goto(f"/replays/{marine.pk}/")
        page.get_by_role("button", name="Last step").click()
        expect(page.locator("#board")).not_to_have_attribute("data-step", "0")
        box = page.locator(".earth-frame svg").first.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 391, f"the earth overflows: {box}"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        check_a11y(page)
        screenshot(page, "marine-phone-end")
    finally:
        context.close()
    assert problems.errors == []


def test_a_ladder_shows_its_ratings_after_a_match(page: Any, check_a11y: Any) -> None:
    match = ladder_match("marine", 2)
    page.goto("/")
    page.locator("#ladders-h + ul").get_by_role("link", name="open ladder").click()
    rows = page.locator("table.standings tbody tr")
    expect(rows).to_have_count(2)
    winner = match.seats.select_related("bot_version__bot").get(rank=1)
    expect(rows.nth(0)).to_contain_text(winner.bot_version.label)
    expect(rows.nth(0).locator("td").nth(2)).to_have_text("1")
    expect(page.locator(f".fairness li.seat-{winner.number}").first).to_contain_text("1 / 1 won")
    expect(page.locator("table.matches tbody tr")).to_have_count(1)
    check_a11y(page)
