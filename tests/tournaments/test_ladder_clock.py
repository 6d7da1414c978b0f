"""The ladders' clock (tournaments/ladder_clock.py): each round records when the next comes, and the ladder page
says it; with no clock lately, or paused, the page says that instead."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tournaments.ladder_clock import next_round, scheduled_round
from tournaments.ladders import join_ladder
from tournaments.models import Ladder, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(builtin_versions: dict[str, Any]) -> Ladder:
    cache.clear()
    ladder = Ladder.objects.create(name="open", game="evolution", players_per_match=2, is_open=True)
    join_ladder(ladder, [builtin_versions["greedy"], builtin_versions["random"]])
    return ladder


def note(client: Client, ladder: Ladder) -> str:
    page = client.get(f"/ladders/{ladder.pk}/").content.decode()
    return page.partition('id="next-round">')[2].partition("</p>")[0]


def test_the_ladder_page_says_when_the_next_round_comes(client: Client, ladder: Ladder, settings: Any) -> None:
    settings.CELERY_BEAT_SCHEDULE = {**settings.CELERY_BEAT_SCHEDULE,
                                     "schedule-ladders": {"task": "workers.schedule_ladders", "schedule": 30}}
    assert next_round() is None
    assert note(client, ladder).startswith("No round has come lately")
    assert scheduled_round() == ladder.max_queued and Match.objects.filter(ladder=ladder).count() == ladder.max_queued
    said = note(client, ladder)
    assert said.startswith("Next round in about ") and "every 30 s the ladder is topped up to 4 matches" in said
    seconds = int(said.removeprefix("Next round in about ").partition(" s")[0])
    assert 0 <= seconds <= 30


def test_a_paused_ladder_says_no_round_comes(client: Client, ladder: Ladder) -> None:
    scheduled_round()
    Ladder.objects.filter(pk=ladder.pk).update(paused=True)
    assert note(client, ladder).startswith("Paused: no new rounds")
