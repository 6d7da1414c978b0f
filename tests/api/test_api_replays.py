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


def test_anyone_gets_a_live_matchs_public_frames_with_no_choice_and_no_options(world: World) -> None:
    body = world.client("anonymous").get(f"/api/matches/{world.running.pk}/frames/", {"seat": "public"}).json()
    assert (body["seat"], body["finished"], body["steps"]) == ("public", False, len(live_actions_so_far()))
    assert [f["step"] for f in body["frames"]] == list(range(len(live_actions_so_far()) + 1))
    assert all(f["view"]["you"] is None and all(seat["hand"] is None for seat in f["view"]["seats"])
               for f in body["frames"])
    for frame in body["frames"]:
        assert "options" not in (frame["decision"] or {}), frame["decision"]
        assert "choice" not in (frame["action"] or {}) and not {"choice", "options"} & set(frame["decided"] or {})


def test_each_frame_carries_the_decision_that_led_to_it(world: World) -> None:
    body = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/frames/", {"start": 2, "stop": 5}).json()
    actions = world.finished.replay.action_log()
    everything = frames(world.finished.replay.document(), 1, 5)  # from the step before: its pending decision
    for before, frame in zip(everything, body["frames"], strict=False):
        assert frame["decided"] == dict(before["decision"], **actions[frame["step"] - 1])
        assert 0 <= frame["decided"]["choice"] < len(frame["decided"]["options"])
    assert body["finished"] and body["frames"][0]["step"] == 2


def test_a_finished_matchs_frames_are_compressed_and_cacheable_and_live_ones_are_never_stored(world: World) -> None:
    over = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/frames/", HTTP_ACCEPT_ENCODING="gzip")
    assert (over["Content-Encoding"], over["Cache-Control"]) == ("gzip", "public, max-age=86400")
    live = world.client("owner").get(f"/api/matches/{world.running.pk}/frames/", {"seat": 0})
    assert live["Cache-Control"] == "private, no-store"
