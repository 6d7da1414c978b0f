"""The viewer's "Branch from here" form and a branch's page beside its parent (docs/branches.md)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tournaments.models import Bot, BotVersion, Ladder, Match, Seat
from tournaments.new_matches import create_match
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def client_of(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_the_form_is_offered_to_signed_in_users_once_the_match_is_over(parent: Match, bob: Any) -> None:
    assert 'id="branch-form"' in client_of(bob).get(f"/replays/{parent.pk}/").content.decode()
    assert 'id="branch-form"' not in client_of().get(f"/replays/{parent.pk}/").content.decode()
    create_match(parent.ladder, list(parent.seats.values_list("bot_version", flat=True)), parent.seed)  # its set
    assert 'id="branch-form"' not in client_of(bob).get(f"/replays/{parent.pk}/").content.decode()


def test_the_form_keeps_a_private_bots_name_to_itself(parent: Match, alice: Any, bob: Any) -> None:
    private = Bot.objects.create(owner=alice, name="stealthy", game="marine", visibility=Bot.Visibility.PRIVATE)
    version = BotVersion.objects.create(bot=private, number=1, source=b"x", status=BotVersion.Status.ACTIVE)
    Seat.objects.filter(match=parent, number=1).update(bot_version=version)
    page = client_of(bob).get(f"/replays/{parent.pk}/").content.decode()
    assert "stealthy" not in page and "keep private bot" in page
    assert "keep stealthy@1" in client_of(alice).get(f"/replays/{parent.pk}/").content.decode()


def test_submitting_the_form_queues_a_branch_and_opens_its_page(parent: Match, bob: Any) -> None:
    answer = client_of(bob).post(f"/replays/{parent.pk}/branch/", {"step": "9", "seat_1": "random", "force": "",
                                                                   "games": "1"})
    child = Match.objects.get(parent=parent)
    assert answer.status_code == 302 and answer["Location"] == f"/replays/{child.pk}/compare/"
    assert (child.branch_step, child.branch_force) == (9, None)
    page = client_of(bob).get(answer["Location"]).content.decode()
    assert f"Branch #{child.pk}" in page and 'id="compare-waiting"' in page and "queued" in page
    assert "seat 2 plays built-in random instead of greedy-2@1" in page  # the form's second seat: Seat 2
    parents_page = client_of(bob).get(f"/replays/{parent.pk}/").content.decode()
    assert "seat 2 plays built-in random instead of greedy-2@1" in parents_page  # its list of branches


def test_a_refused_branch_goes_back_to_the_step_with_the_reason(parent: Match, bob: Any) -> None:
    client = client_of(bob)
    answer = client.post(f"/replays/{parent.pk}/branch/", {"step": "9", "games": "3"})
    assert answer.status_code == 302 and answer["Location"] == f"/replays/{parent.pk}/#step=9"
    page = client.get(f"/replays/{parent.pk}/").content.decode()
    assert "No branch: more than one game needs resample" in page
    assert not Match.objects.filter(parent=parent).exists()
    assert client.post(f"/replays/{parent.pk}/branch/", {"step": "nine"}).status_code == 302
    assert "No branch: step must be a whole number, got &#x27;nine&#x27;" in client.get(
        f"/replays/{parent.pk}/").content.decode()


def test_anonymous_visitors_are_sent_to_log_in(parent: Match) -> None:
    answer = client_of().post(f"/replays/{parent.pk}/branch/", {"step": "9"})
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert not Match.objects.filter(parent=parent).exists()


def test_the_branch_page_shows_both_scores_and_where_the_charts_part(parent: Match, bob: Any) -> None:
    client = client_of(bob)
    client.post(f"/replays/{parent.pk}/branch/", {"step": "20", "force": "1"})
    child = Match.objects.get(parent=parent)
    assert run_match(child.pk) == "finished"
    page = client.get(f"/replays/{child.pk}/compare/").content.decode()
    scores = [str(s) for m in (parent, child) for s in m.seats.order_by("number").values_list("score", flat=True)]
    assert all(f'<strong class="score-value">{score}</strong>' in page for score in scores)
    assert 'class="branch-point"' in page and page.count("<polyline") == 4
    assert "step 20 is the branch point" in page
    assert ('class="parted"' in page) == ("the scores part at step" in page)
    assert f'Branch of <a href="/replays/{parent.pk}/#step=20">match #{parent.pk}</a>' in client.get(
        f"/replays/{child.pk}/").content.decode()


def test_a_match_that_is_no_branch_has_no_branch_page(parent: Match) -> None:
    assert client_of().get(f"/replays/{parent.pk}/compare/").status_code == 404
    assert Ladder.objects.filter(name="branches marine").count() == 0


def test_the_form_shares_the_match_requests_rate(parent: Match, bob: Any, monkeypatch: Any) -> None:
    from django.core.cache import cache
    from rest_framework.throttling import ScopedRateThrottle

    cache.clear()
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", dict(ScopedRateThrottle.THROTTLE_RATES, matches="1/hour"))
    client = client_of(bob)
    assert client.post(f"/replays/{parent.pk}/branch/", {"step": "3"})["Location"].endswith("/compare/")
    assert client.post(f"/replays/{parent.pk}/branch/", {"step": "4"})["Location"] == f"/replays/{parent.pk}/#step=4"
    assert "No branch: too many match requests" in client.get(f"/replays/{parent.pk}/").content.decode()
    assert Match.objects.filter(parent=parent).count() == 1
    cache.clear()
