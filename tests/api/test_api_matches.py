"""`/api/matches/`: filters, cursor pages, seats (logs for their owners only) and match requests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from apiworld import World

from tournaments.models import Match

pytestmark = pytest.mark.django_db


def ids(world: World, role: str = "anonymous", **query: object) -> list[int]:
    response = world.client(role).get("/api/matches/", query)
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def test_it_lists_matches_newest_first(world: World) -> None:
    assert ids(world) == [world.queued.pk, world.running.pk, world.finished.pk]


@pytest.mark.parametrize(("query", "expected"), [
    ({"status": "finished"}, ["finished"]),
    ({"status": "running"}, ["running"]),
    ({"game": "evolution"}, ["queued", "running", "finished"]),
    ({"game": "marine"}, []),
    ({"ladder": "{ladder}"}, ["running", "finished"]),
    ({"tournament": "{tournament}"}, ["queued"]),
    ({"bot": "{bot}"}, ["queued", "running", "finished"]),
    ({"bot_version": "{version2}"}, []),
])
def test_it_filters_matches(world: World, query: dict[str, str], expected: list[str]) -> None:
    values = {"ladder": world.ladder.pk, "tournament": world.tournament.pk, "bot": world.bot.pk,
              "version2": world.version2.pk}
    filled = {k: values[v.strip("{}")] if v.startswith("{") else v for k, v in query.items()}
    assert ids(world, **filled) == [getattr(world, name).pk for name in expected]


def test_it_filters_matches_by_date(world: World) -> None:
    finished_at = world.finished.finished_at
    assert ids(world, finished_after=(finished_at - timedelta(seconds=1)).isoformat()) == [world.finished.pk]
    assert ids(world, finished_before=(finished_at - timedelta(seconds=1)).isoformat()) == []


def test_it_pages_with_a_stable_cursor(world: World) -> None:
    client = world.client("anonymous")
    first = client.get("/api/matches/", {"page_size": 2}).json()
    second = client.get(first["next"]).json()
    assert [r["id"] for r in first["results"] + second["results"]] == ids(world)
    assert second["next"] is None


def test_it_shows_a_seat_log_only_to_its_owner_and_staff(world: World) -> None:
    logs = {role: [s["log"] for s in world.client(role).get(f"/api/matches/{world.finished.pk}/").json()["seats"]]
            for role in ("anonymous", "owner", "author", "admin")}
    assert logs["anonymous"] == [None, None]
    assert logs["owner"][0].startswith("alice") and logs["owner"][1] is None
    assert logs["author"][0] is None and logs["author"][1].startswith("bob")
    assert all(logs["admin"])


def test_it_creates_an_unrated_requested_match(world: World) -> None:
    response = world.client("owner").post("/api/matches/", {"ladder": world.ladder.pk,
                                                            "seats": [world.version.pk, world.other_version.pk]},
                                          format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert (match.status, match.rated, match.ladder_id) == ("queued", False, world.ladder.pk)
    assert [s.bot_version_id for s in match.seats.order_by("number")] == [world.version.pk, world.other_version.pk]


def test_it_refuses_a_match_on_a_paused_ladder(world: World) -> None:
    world.ladder.paused = True
    world.ladder.save()
    response = world.client("owner").post("/api/matches/", {"ladder": world.ladder.pk,
                                                            "seats": [world.version.pk, world.other_version.pk]},
                                          format="json")
    assert response.status_code == 400 and "paused" in str(response.json())


def test_it_throttles_match_requests(world: World, settings: object) -> None:
    from rest_framework.throttling import ScopedRateThrottle

    rates = dict(ScopedRateThrottle.THROTTLE_RATES, matches="2/hour")
    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = rates
    try:
        body = {"ladder": world.ladder.pk, "seats": [world.version.pk, world.other_version.pk]}
        codes = [world.client("owner").post("/api/matches/", body, format="json").status_code for _ in range(3)]
        assert codes == [201, 201, 429]
        assert world.client("owner").get("/api/matches/").status_code == 200  # reads are not throttled
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original
