"""`/api/matches/{id}/replay/`, `/replay/actions/` and `/frames/`: replays and frames by step range and seat."""

from __future__ import annotations

import pytest
from apiworld import World, live_actions_so_far

from replays.frames import frames

pytestmark = pytest.mark.django_db


def test_it_gives_a_finished_matchs_header_and_footer(world: World) -> None:
    body = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/replay/").json()
    assert body["header"]["seed"] == world.finished.seed
    assert body["footer"]["outcome"] == world.finished.replay.footer["outcome"]
    assert body["steps"] == len(world.finished.replay.action_log())


def test_it_gives_the_action_log(world: World) -> None:
    body = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/replay/actions/").json()
    # Each action with its step: the Nth decision is step N, as in the viewer and the CLI.
    assert body["actions"] == [dict(a, step=i + 1) for i, a in enumerate(world.finished.replay.action_log())]


def test_it_has_no_replay_before_the_match_is_finished(world: World) -> None:
    response = world.client("admin").get(f"/api/matches/{world.running.pk}/replay/")
    assert response.status_code == 404 and "once it is finished" in response.json()["detail"]


@pytest.mark.parametrize(("start", "stop", "seat"), [(0, 5, None), (3, 10, 0), (10, 11, 1)])
def test_it_gives_the_frames_of_a_range_and_seat(world: World, start: int, stop: int, seat: int | None) -> None:
    query = {"start": start, "stop": stop} | ({} if seat is None else {"seat": seat})
    body = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/frames/", query).json()
    assert body["frames"] == frames(world.finished.replay.document(), start, stop, seat)


def test_it_gives_a_seat_owner_the_live_frames_so_far(world: World) -> None:
    body = world.client("owner").get(f"/api/matches/{world.running.pk}/frames/", {"seat": 0}).json()
    assert body["steps"] == len(live_actions_so_far())
    assert [f["step"] for f in body["frames"]] == list(range(len(live_actions_so_far()) + 1))
    assert all(f["view"]["you"] == 0 for f in body["frames"])
    others = [f["action"] for f in body["frames"] if f["action"] and f["action"]["seat"] != 0]
    assert others and all("choice" not in action for action in others)


def test_it_gives_staff_the_live_omniscient_frames(world: World) -> None:
    body = world.client("admin").get(f"/api/matches/{world.running.pk}/frames/").json()
    assert all(f["view"]["you"] is None for f in body["frames"])


def test_it_gives_an_empty_page_past_the_end(world: World) -> None:
    body = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/frames/", {"start": 500}).json()
    assert body["frames"] == []
