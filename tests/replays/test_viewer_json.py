"""The viewer's JSON: the frames it reads from the API (who may see which: the server decides), the log and the
export file."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from replays.format import decode_replay
from replays.models import Replay
from replays.progress import save_progress
from replays.verify import initial_state, step
from tournaments.models import Match
from tournaments.scheduling import start_tournament
from tournaments.services import claim_match
from workers.runner import play_match, run_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(tournament: Any) -> Match:
    return start_tournament(tournament, enqueue=False)[0]


@pytest.fixture
def evolution_match(make_tournament: Any) -> Match:
    tournament = make_tournament(game="evolution", entrants=("greedy", "random", "greedy-2"), players_per_table=3)
    return start_tournament(tournament, enqueue=False)[0]


def frames(client: Client, match: Match, view: str, start: int = 0, stop: int | None = None) -> Any:
    """The frames the viewer fetches for a view: /api/matches/ID/frames/ with the view's `seat` (none: omniscient)."""
    query: dict[str, Any] = {"start": start} | ({} if stop is None else {"stop": stop})
    query |= {} if view == "omniscient" else {"seat": view}
    return client.get(f"/api/matches/{match.pk}/frames/", query)


def test_it_serves_every_view_of_a_finished_match_to_anyone(client: Client, match: Match) -> None:
    assert run_match(match.pk) == "finished"
    for view in ("0", "1", "public", "omniscient"):
        response = frames(client, match, view)
        assert response.status_code == 200, view
        body = response.json()
        assert body["finished"] and body["frames"][0]["step"] == 0 and body["frames"][0]["decided"] is None
    log = client.get(f"/replays/{match.pk}/log.json").json()
    assert log["views"] == ["0", "1", "public", "omniscient"]
    assert log["outcome"]["scores"] == [seat.score for seat in match.seats.order_by("number")]
    assert [entry["step"] for entry in log["log"]] == list(range(1, log["steps"]))


def test_it_attaches_each_decision_with_its_options_and_choice(client: Client, match: Match) -> None:
    assert run_match(match.pk) == "finished"
    actions = Replay.objects.get(match=match).action_log()
    body = frames(client, match, "omniscient", start=1, stop=3).json()
    assert [f["step"] for f in body["frames"]] == [1, 2]
    for frame in body["frames"]:
        decided, action = frame["decided"], actions[frame["step"] - 1]
        assert decided["choice"] == action["choice"] and decided["seat"] == action["seat"]
        assert decided["options"] and "kind" in decided


def test_a_seats_view_shows_the_options_of_its_own_decisions_only(client: Client, match: Match) -> None:
    assert run_match(match.pk) == "finished"
    decided = [frame["decided"] for frame in frames(client, match, "0", start=1).json()["frames"]]
    assert {d["seat"] for d in decided} == {0, 1}
    assert all(("options" in d) == (d["seat"] == 0) for d in decided), decided
    assert all("choice" in d for d in decided)  # the match is over: every seat's choice


def test_it_refuses_the_omniscient_view_and_other_seats_while_the_match_runs(
    client: Client, match: Match, admin_user: Any
) -> None:
    assert claim_match(match.pk, "test-runner")
    document, _ = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    save_progress(match.pk, 1, document["actions"][:3])
    assert frames(client, match, "omniscient").status_code == 401  # anonymous: log in as an owner
    assert frames(client, match, "0").status_code == 401
    log = client.get(f"/replays/{match.pk}/log.json").json()
    assert (log["status"], log["steps"], log["views"], log["finished"]) == ("running", 4, ["public"], False)
    assert all("choice" not in entry for entry in log["log"])
    client.force_login(admin_user)
    body = frames(client, match, "omniscient").json()
    assert [frame["step"] for frame in body["frames"]] == [0, 1, 2, 3]


def test_it_exports_the_replay_file(client: Client, match: Match) -> None:
    assert run_match(match.pk) == "finished"
    response = client.get(f"/replays/{match.pk}/export/")
    assert response.status_code == 200 and response["Content-Disposition"].startswith("attachment")
    assert decode_replay(response.content) == Replay.objects.get(match=match).document()


def test_a_queued_match_has_no_frames_and_no_file(client: Client, match: Match) -> None:
    assert client.get(f"/replays/{match.pk}/").status_code == 200
    assert frames(client, match, "0").status_code == 401
    assert frames(client, match, "public").status_code == 404  # not even the public view of the opening position
    assert client.get(f"/replays/{match.pk}/export/").status_code == 404


def test_anyone_watches_a_live_match_in_the_public_view_that_hides_every_secret(
    client: Client, match: Match, evolution_match: Match
) -> None:
    match = evolution_match
    assert claim_match(match.pk, "test-runner")
    document, _ = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    save_progress(match.pk, 1, document["actions"][:30])
    body = frames(client, match, "public", start=0, stop=31).json()
    assert [frame["step"] for frame in body["frames"]] == list(range(31))
    state, hidden_seen = initial_state(document["header"]), 0
    for index, frame in enumerate(body["frames"]):
        if index:
            step(state, index - 1, document["actions"][index - 1])
        views = [state.view(seat) for seat in range(3)]
        view = frame["view"]
        assert view["you"] is None and view["round"] == views[0]["round"]
        for seat, shown in enumerate(view["seats"]):
            assert shown["hand"] is None and shown["hand_count"] == views[seat]["seats"][seat]["hand_count"]
            assert shown["food_card"] in (None, "?")
            assert all(card == "?" for species in shown["species"] for card in species["face_down"])
            own = views[seat]["seats"][seat]
            assert [s["traits"] for s in shown["species"]] == [s["traits"] for s in own["species"]]
            hidden_seen += own["food_card"] not in (None, "?") and shown["food_card"] == "?"
        assert "options" not in (frame["decision"] or {}) and "deck" not in view
        assert frame["action"] is None or "choice" not in frame["action"]
        assert frame["decided"] is None or ("choice" not in frame["decided"] and "options" not in frame["decided"])
    assert hidden_seen  # a secret food card was on the table, and the public view showed it face down


def test_the_score_series_ends_at_the_outcome_and_respects_the_view(client: Client, evolution_match: Match,
                                                                     make_tournament: Any) -> None:
    match = evolution_match
    assert claim_match(match.pk, "test-runner")
    document, _ = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    save_progress(match.pk, 1, document["actions"][:20])
    assert client.get(f"/replays/{match.pk}/scores.json?view=omniscient").status_code == 403  # live: not yet
    live_scores = client.get(f"/replays/{match.pk}/scores.json?view=public").json()["scores"]
    assert len(live_scores) == 21 and all(len(row) == 3 for row in live_scores)
    other = make_tournament(game="evolution", entrants=("greedy", "random", "greedy-2"), players_per_table=3,
                            name="second cup", seed=11)
    finished = start_tournament(other, enqueue=False)[0]
    assert run_match(finished.pk) == "finished"
    body = client.get(f"/replays/{finished.pk}/scores.json?view=omniscient").json()
    assert len(body["scores"]) == body["steps"] == len(Replay.objects.get(match=finished).action_log()) + 1
    assert body["scores"][-1] == [seat.score for seat in finished.seats.order_by("number")]
    assert client.get(f"/replays/{finished.pk}/scores.json?view=9").status_code == 403


def test_live_actions_that_do_not_replay_are_a_json_error_naming_the_step(
    client: Client, match: Match, admin_user: Any
) -> None:
    assert claim_match(match.pk, "test-runner")
    document, _ = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    save_progress(match.pk, 1, [*document["actions"][:3], dict(document["actions"][3], choice=999)])
    client.force_login(admin_user)
    client.raise_request_exception = False
    for answer in (frames(client, match, "omniscient"), client.get(f"/replays/{match.pk}/log.json")):
        assert answer.status_code == 500 and answer["Content-Type"] == "application/json", answer.content[:300]
        assert answer.json()["detail"].startswith(f"match {match.pk}'s actions do not replay: action 3: choice 999")
