"""Tournament pages: Swiss byes shown, the elimination bracket with its sets, byes and champion, the round strip's
scroll cue; at 1440x900 and 390x844."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tournaments.models import Match, Tournament
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("verify_here")]


def play_out(tournament: Tournament) -> None:
    """Play every queued match until the tournament is over (later rounds are made as rounds end)."""
    start_tournament(tournament, enqueue=False)
    while (match := Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("pk").first()):
        assert run_match(match.pk) == "finished"
    tournament.refresh_from_db()
    assert tournament.state == Tournament.State.FINISHED


def test_a_swiss_tournament_shows_its_byes(page: Any, tinynim: Any, make_tournament: Any, check_a11y: Any,
                                           screenshot: Any) -> None:
    cup = make_tournament(entrants=("greedy", "random", "greedy-2"), format="swiss", rounds=3, name="swiss cup")
    play_out(cup)
    byes = [(e.bot_version.label, b) for e in cup.entry_set.select_related("bot_version__bot") for b in e.byes]
    assert len(byes) == 3  # three entrants, tables of two: one sits out each round
    page.goto(f"/tournaments/{cup.pk}/")
    for label, number in byes:
        expect(page.locator(f".round[data-round='{number}'] .table.bye")).to_have_text(
            f"{label} has a bye (counted as a won table)")
    check_a11y(page)
    screenshot(page, "swiss-byes")


@pytest.mark.parametrize("size", [{"width": 1440, "height": 900}, {"width": 390, "height": 844}])
def test_an_elimination_bracket_shows_sets_byes_who_goes_through_and_the_champion(
    page: Any, tinynim: Any, make_tournament: Any, check_a11y: Any, screenshot: Any, size: dict[str, int]
) -> None:
    page.set_viewport_size(size)
    cup = make_tournament(entrants=("greedy", "random", "greedy-2"),
                          format="single_elimination", games_per_set=2, name="knockout")
    play_out(cup)
    entries = list(cup.entry_set.select_related("bot_version__bot"))
    [winner] = [e for e in entries if e.eliminated_round is None]
    page.goto(f"/tournaments/{cup.pk}/")
    expect(page.locator("#rounds-h")).to_have_text("Bracket")
    expect(page.locator("#champion")).to_have_text(f"Champion: {winner.bot_version.label}")
    expect(page.locator(".round").last.locator("h3")).to_have_text("Final")
    expect(page.locator(".round").last.locator(".advanced")).to_have_text(f"Wins: {winner.bot_version.label}")
    expect(page.locator(".round").first.locator(".table.bye")).to_contain_text("has a bye and goes through")
    games = page.locator(".round").first.locator(".table").first.locator(".game")
    expect(games).to_have_count(2)  # a set of two games, seats rotated
    expect(games.first).to_contain_text("Game 1: match #")
    first_round_out = [e.bot_version.label for e in entries if e.eliminated_round == 1]
    through = " ".join(page.locator(".round").first.locator(".advanced").all_inner_texts())
    assert first_round_out and not any(label in through for label in first_round_out)
    if size["width"] < 700:
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    check_a11y(page)
    screenshot(page, f"bracket-{size['width']}")


def test_a_long_round_strip_says_it_scrolls(page: Any, tinynim: Any, make_tournament: Any) -> None:
    cup = make_tournament(entrants=("greedy", "random"), format="swiss", rounds=9, name="long swiss")
    play_out(cup)
    page.goto(f"/tournaments/{cup.pk}/")
    expect(page.locator(".round")).to_have_count(9)
    expect(page.locator(".rounds")).to_have_class(re.compile(r"\boverflows\b"))
    expect(page.locator(".rounds").locator("xpath=preceding-sibling::p[1]")).to_have_text("Scroll sideways for more →")
