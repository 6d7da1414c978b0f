"""docs/architecture.md#adding-a-third-game-in-a-day, done end to end by the toy game (tests/workers/toygame.py):
registered, played by the runner, stored, verified, and shown in the viewer with a score chart, with no line of
tournaments/, replays/ or workers/ naming it."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_matches import play_match
from playwright.sync_api import expect

from engine.registry import load_game
from replays.models import Replay
from replays.verify import verify_document

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_third_game_is_played_stored_verified_and_shown_with_a_score_chart(page: Any, tinynim: Any,
                                                                             check_a11y: Any) -> None:
    assert load_game("tinynim") is tinynim
    match = play_match("tinynim", 3)
    document = Replay.objects.get(match=match).document()
    assert document["header"]["game"] == "tinynim"
    outcome = verify_document(document)
    seats = list(match.seats.order_by("number"))
    assert [seat.score for seat in seats] == outcome["scores"]

    page.goto(f"/replays/{match.pk}/")
    last = len(document["actions"])
    expect(page.locator("#step-counter")).to_have_text(f"0 / {last}")
    expect(page.locator("#board")).to_have_attribute("data-step", "0")
    expect(page.locator("#board pre")).to_contain_text('"pile"')  # the generic board: no renderer of its own
    chart = page.locator("#score-chart svg")
    expect(chart.locator("polyline")).to_have_count(3)
    check_a11y(page)

    page.keyboard.press("End")
    expect(page.locator("#board")).to_have_attribute("data-step", str(last))
    expect(page.locator("#final-panel")).to_be_visible()
    for seat in seats:
        final = page.locator(f"#final-scores [data-seat='{seat.number}']")
        expect(final).to_have_attribute("data-score", str(seat.score))
        expect(final).to_contain_text("point")
    series = page.request.get(f"/replays/{match.pk}/scores.json?view=omniscient").json()["scores"]
    assert len(series) == last + 1 and series[-1] == outcome["scores"]  # the chart ends at the final scores
    check_a11y(page)
