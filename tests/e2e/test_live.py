"""A live match in the viewer: the real runner plays in a background thread while the page is open.

The seats' decisions pass through a gate the test opens a few at a time, so the page is seen to advance step by
step (no sleeping: the test waits for the page, the runner waits for the gate).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from e2e_matches import entrants, owned_builtin, schedule
from playwright.sync_api import expect

from tournaments.models import Match
from workers import runner

pytestmark = pytest.mark.django_db(transaction=True)

GATE_TIMEOUT_S = 120  # a safety net so a failed test never leaves the runner thread blocked


class GatedSeat:
    """A seat player that takes one permit from the gate before each decision."""

    def __init__(self, player: Any, gate: threading.Semaphore) -> None:
        self._player, self._gate = player, gate

    def decide(self, *args: Any, **kwargs: Any) -> Any:
        if not self._gate.acquire(timeout=GATE_TIMEOUT_S):
            raise RuntimeError("the test never opened the gate")
        return self._player.decide(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._player, name)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Semaphore]:
    semaphore = threading.Semaphore(0)
    make = runner.make_seat_player
    monkeypatch.setattr(runner, "make_seat_player", lambda match, seat: GatedSeat(make(match, seat), semaphore))

    class EveryAction(runner.ProgressRecorder):  # type: ignore[misc,valid-type]
        """Publish the progress after every action while the test watches step by step (PACE["interval"] = 0),
        then at the runner's usual pace once the test lets the game play out."""

        @property
        def interval(self) -> float:
            return PACE["interval"]

        @interval.setter
        def interval(self, value: float) -> None:
            pass

    PACE["interval"] = 0.0
    monkeypatch.setattr(runner, "ProgressRecorder", EveryAction)
    yield semaphore
    semaphore.release(100_000)


PACE = {"interval": 0.0}


def play_out(gate: threading.Semaphore) -> None:
    PACE["interval"] = 0.25
    gate.release(100_000)


def run_in_background(match_id: int, wait_until: Any) -> tuple[threading.Thread, list[str]]:
    """run_match in a thread, like a worker; returns once the runner has claimed the match."""
    result: list[str] = []

    def play() -> None:
        try:
            result.append(runner.run_match(match_id))
        finally:
            connection.close()

    thread = threading.Thread(target=play, name=f"runner-{match_id}", daemon=True)
    thread.start()
    wait_until(lambda: result or Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).exists(), 60,
               "the runner to claim the match")
    return thread, result


def log_in(page: Any, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_have_text("Ludus")


def test_a_live_match_advances_while_the_page_is_open(
    page: Any, alice: Any, gate: threading.Semaphore, check_a11y: Any, screenshot: Any, wait_until: Any
) -> None:
    mine = owned_builtin(alice, "alices-greedy")
    _, matches = schedule("evolution", 3, versions=[mine, *entrants(2)])
    match = matches[0]
    own = match.seats.get(bot_version=mine).number
    other = (own + 1) % 3
    log_in(page, "alice", "alice-password-1")
    thread, result = run_in_background(match.pk, wait_until)
    try:
        page.goto(f"/replays/{match.pk}/")
        expect(page.locator("#live-badge")).to_be_visible()
        expect(page.locator("#match-status")).to_have_text("running")
        # The server offers alice her own seat's view and the public one: no other seat, no omniscient view before
        # the end.
        expect(page.locator("#view-select option")).to_have_count(2)
        expect(page.locator("#view-select option").first).to_have_attribute("value", str(own))
        expect(page.locator("#view-select option").last).to_have_attribute("value", "public")
        expect(page.locator("#view-select")).to_have_value(str(own))
        refused = page.request.get(f"/api/matches/{match.pk}/frames/?start=0")  # the omniscient view, as alice
        assert refused.status == 403
        expect(page.locator("#step-counter")).to_have_text("0 / 0")

        for played in (20, 45):
            gate.release(played - int(page.locator("#board").get_attribute("data-step") or 0))
            expect(page.locator("#step-counter")).to_have_text(f"{played} / {played}")
            expect(page.locator("#board")).to_have_attribute("data-step", str(played))
        expect(page.locator(f"[data-hand-seat='{own}']")).to_have_class(re.compile(r"\bhand-shown\b"))
        expect(page.locator(f"[data-hand-seat='{other}']")).to_have_class(re.compile(r"\bhand-hidden\b"))
        expect(page.locator("#eventlog > li[data-step='45']")).to_have_class(re.compile(r"\bcurrent\b"))
        check_a11y(page)
        screenshot(page, "evolution-live")

        play_out(gate)
        thread.join(timeout=120)
        assert result == ["finished"]
        expect(page.locator("#match-status")).to_have_text("finished")
        expect(page.locator("#live-badge")).to_be_hidden()
        expect(page.locator("#view-select option[value='omniscient']")).to_have_count(1)
        last = len(Match.objects.get(pk=match.pk).replay.action_log())
        expect(page.locator("#step-counter")).to_have_text(f"{last} / {last}")
        for seat in Match.objects.get(pk=match.pk).seats.all():
            expect(page.locator(f"#final-scores [data-seat='{seat.number}']")).to_have_attribute(
                "data-score", str(seat.score))
    finally:
        gate.release(100_000)
        thread.join(timeout=120)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_spectator_follows_a_live_match_on_the_public_board(
    page: Any, gate: threading.Semaphore, check_a11y: Any, screenshot: Any, wait_until: Any, size: str
) -> None:
    if size == "phone":
        page.set_viewport_size({"width": 390, "height": 844})
    _, matches = schedule("marine", 2)
    match = matches[0]
    page.goto(f"/replays/{match.pk}/")
    expect(page.locator("#viewer-unavailable")).to_contain_text("queued")
    check_a11y(page)
    thread, result = run_in_background(match.pk, wait_until)
    try:
        expect(page.locator("#live-badge")).to_be_visible()  # the waiting page reloads once the match starts
        # Anyone sees the public view (what every seat sees), never a seat's own or the omniscient one.
        expect(page.locator("#view-select option")).to_have_count(1)
        expect(page.locator("#view-select")).to_have_value("public")
        assert page.request.get(f"/api/matches/{match.pk}/frames/?seat=0&start=0").status == 401  # log in first
        gate.release(12)
        expect(page.locator("#step-counter")).to_have_text("12 / 12")
        expect(page.locator("#board")).to_have_attribute("data-view", "public")
        expect(page.locator("#board .earth svg")).to_be_visible()
        expect(page.locator("#eventlog > li[data-step='12']")).to_be_visible()
        # Public live frames carry no choice: the panel says so in words that are true, never "#undefined".
        expect(page.locator("#decision-hidden")).to_contain_text("hidden from this view while the match runs")
        expect(page.locator("#decision")).not_to_contain_text("undefined")
        expect(page.locator("#decision-line")).to_contain_text("Seat ")
        expect(page.locator("#download")).to_be_hidden()  # no replay file while it runs
        expect(page.locator("#seat-list .result").first).to_be_hidden()
        check_a11y(page)
        screenshot(page, f"marine-live-public-{size}")
        play_out(gate)
        thread.join(timeout=120)
        assert result == ["finished"]
        expect(page.locator("#match-status")).to_have_text("finished")
        expect(page.locator("#board .earth svg")).to_be_visible()  # the whole game opens once it is over
        # The header follows the end: the replay file's link, and each seat's rank and score (watched to its end).
        expect(page.locator("#download")).to_be_visible()
        for seat in Match.objects.get(pk=match.pk).seats.all():
            expect(page.locator(f"#seat-list li[data-seat='{seat.number}'] .result")).to_have_text(
                re.compile(rf"^#{seat.rank}, {seat.score} VP$"))
        expect(page.locator("#view-select option[value='omniscient']")).to_have_count(1)
        page.click("#btn-prev")  # frames read again once it is over: the choice is no longer hidden
        expect(page.locator("#decision-hidden")).to_contain_text("It chose option ")
        screenshot(page, f"marine-live-finished-{size}")
    finally:
        gate.release(100_000)
        thread.join(timeout=120)
