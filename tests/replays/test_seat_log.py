"""A seat's stderr in the viewer, by step: only its bot's owner and staff ever read it (hostile cases first)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from replays.seat_logs import split_by_step
from tournaments.models import Bot, BotVersion, Ladder, Match, Seat
from workers.runner import run_match
from workers.sandbox.seat_log import StderrLog

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SECRET = "alice's secret plan: sacrifice species 2"


def play_match_of(game: str, versions: list[BotVersion]) -> Match:
    """One ladder match between these versions, played by the real runner."""
    ladder = Ladder.objects.create(name=f"{game} logs", game=game, players_per_match=len(versions), paused=True)
    match = Match.objects.create(ladder=ladder, game=game, num_players=len(versions), seed=3)
    for number, version in enumerate(versions):
        Seat.objects.create(match=match, number=number, bot_version=version)
    assert run_match(match.pk) == "finished", Match.objects.get(pk=match.pk).error
    return match


@pytest.fixture
def match(alice: Any, tinynim: Any, builtin_versions: dict[str, Any]) -> Match:
    """A finished match whose seat 0 is alice's private bot with a log, seat 1 a built-in."""
    bot = Bot.objects.create(owner=alice, name="plans", game="tinynim", visibility=Bot.Visibility.PRIVATE)
    version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", status=BotVersion.Status.ACTIVE,
                                        source=b"builtin:greedy", filename="engine/bots/greedy")
    match = play_match_of("tinynim", [version, builtin_versions["random"]])
    Seat.objects.filter(match=match, number=0).update(log=f"[ludus] step 1\n{SECRET}\n")
    return match


def client_for(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_anonymous_readers_get_404(match: Match) -> None:
    response = client_for(None).get(f"/replays/{match.pk}/seats/0/log.json")
    assert response.status_code == 404 and SECRET not in response.content.decode()


def test_another_user_gets_404_like_a_seat_that_does_not_exist(match: Match, charlie: Any) -> None:
    response = client_for(charlie).get(f"/replays/{match.pk}/seats/0/log.json")
    missing = client_for(charlie).get(f"/replays/{match.pk}/seats/7/log.json")
    assert response.status_code == missing.status_code == 404 and SECRET not in response.content.decode()


def test_another_user_never_finds_it_in_the_viewer_page(match: Match, charlie: Any) -> None:
    page = client_for(charlie).get(f"/replays/{match.pk}/").content.decode()
    assert SECRET not in page and "seats/0/log.json" not in page


def test_the_owner_reads_it_by_step_and_the_viewer_links_it(match: Match, alice: Any) -> None:
    body = client_for(alice).get(f"/replays/{match.pk}/seats/0/log.json").json()
    assert body["steps"] == {"1": SECRET}
    assert f"/replays/{match.pk}/seats/0/log.json" in client_for(alice).get(f"/replays/{match.pk}/").content.decode()
    assert client_for(alice).get(f"/replays/{match.pk}/seats/1/log.json").status_code == 404  # not her bot


def test_staff_read_every_seat_log(match: Match, admin_user: Any) -> None:
    assert client_for(admin_user).get(f"/replays/{match.pk}/seats/0/log.json").json()["steps"] == {"1": SECRET}
    assert client_for(admin_user).get(f"/replays/{match.pk}/seats/1/log.json").status_code == 200


def test_it_splits_the_start_up_lines_from_each_steps_lines() -> None:
    log = StderrLog(cap=4096)
    log.add(b"banner\n")
    log.mark(3)
    log.mark(5)  # nothing written at step 3: no mark for it
    log.add(b"five a\nfive b")
    log.mark(9)
    log.add(b"nine\n")
    assert log.text() == "banner\n[ludus] step 5\nfive a\nfive b\n[ludus] step 9\nnine\n"
    assert split_by_step(log.text()) == {"start": "banner", "steps": {"5": "five a\nfive b", "9": "nine"}}


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")
def test_a_sandboxed_bots_lines_land_on_the_steps_they_were_written_at(alice: Any, tinynim: Any,
                                                                       builtin_versions: dict[str, Any]) -> None:
    bot = Bot.objects.create(owner=alice, name="chatty", game="tinynim")
    version = BotVersion.objects.create(bot=bot, number=1, source=(FIXTURES / "chatty_bot.py").read_bytes(),
                                        filename="chatty_bot.py", status=BotVersion.Status.ACTIVE)
    match = play_match_of("tinynim", [version, builtin_versions["greedy"]])
    body = client_for(alice).get(f"/replays/{match.pk}/seats/0/log.json").json()
    assert body["start"] == "chatty: up"
    assert body["steps"] and all(text == f"chatty: thinking about seq {step}" for step, text in body["steps"].items())
    actions = match.replay.document()["actions"]
    assert sorted(map(int, body["steps"])) == [i + 1 for i, a in enumerate(actions) if a["seat"] == 0]
