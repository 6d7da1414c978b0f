"""One frames endpoint with one cap (replays.frames.MAX_FRAMES): `/api/matches/{id}/frames/`, which the replay
viewer reads too, in chunks of the cap (docs/api.md)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from replays.frames import MAX_FRAMES
from tournaments.models import Ladder
from tournaments.new_matches import create_match
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def test_the_viewer_reads_the_apis_frames_in_chunks_of_the_one_cap(builtin_versions: dict[str, Any]) -> None:
    ladder = Ladder.objects.create(name="long", game="evolution", players_per_match=2)
    match = create_match(ladder, [builtin_versions["greedy"], builtin_versions["greedy-2"]], 5)
    assert run_match(match.pk) == "finished"
    client = APIClient()
    assert client.get(f"/api/matches/{match.pk}/frames/?start=0&stop=1").json()["steps"] >= MAX_FRAMES  # capped
    config = client.get(f"/replays/{match.pk}/").context["config"]
    assert (config["urls"]["frames"], config["chunk"]) == (f"/api/matches/{match.pk}/frames/", MAX_FRAMES)
    chunk = client.get(f"{config['urls']['frames']}?start=0&stop={config['chunk']}").json()["frames"]
    assert [frame["step"] for frame in chunk] == list(range(MAX_FRAMES))
    assert client.get(f"/api/matches/{match.pk}/frames/?start=0&stop={MAX_FRAMES + 1}").status_code == 400

