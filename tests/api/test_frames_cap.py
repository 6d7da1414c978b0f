"""One cap on frames per request (replays.frames.MAX_FRAMES) for both readers of frames: the API's
`/api/matches/{id}/frames/` and the viewer's `/replays/{id}/frames.json` (docs/api.md)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from replays.frames import MAX_FRAMES
from tournaments.models import Ladder
from tournaments.new_matches import create_match
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def test_the_api_and_the_viewer_give_the_same_frames_for_the_same_range(builtin_versions: dict[str, Any]) -> None:
    ladder = Ladder.objects.create(name="long", game="evolution", players_per_match=2)
    match = create_match(ladder, [builtin_versions["greedy"], builtin_versions["greedy-2"]], 5)
    assert run_match(match.pk) == "finished"
    client = APIClient()
    steps = client.get(f"/api/matches/{match.pk}/frames/?start=0&stop=1").json()["steps"]
    assert steps >= MAX_FRAMES  # a capped range
    api = client.get(f"/api/matches/{match.pk}/frames/?start=0&stop={MAX_FRAMES}").json()["frames"]
    viewer = client.get(f"/replays/{match.pk}/frames.json?view=omniscient&start=0&stop={steps}").json()["frames"]
    assert [frame["step"] for frame in api] == [frame["step"] for frame in viewer] == list(range(MAX_FRAMES))
    assert client.get(f"/api/matches/{match.pk}/frames/?start=0&stop={MAX_FRAMES + 1}").status_code == 400
    assert client.get(f"/replays/{match.pk}/").context["config"]["chunk"] == MAX_FRAMES  # the viewer asks in these
