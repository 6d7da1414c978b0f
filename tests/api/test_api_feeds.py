"""`GET /api/matches/{id}/feed/` and `GET /api/ladders/{id}/feed/`: newline-delimited JSON, public events only."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from apiworld import GAME, RUNNING_SEED, World, _played, full_options, live_actions_so_far
from django.utils import timezone

from engine import load_game
from replays import format as replay_format
from replays.models import Replay
from replays.progress import MatchProgress, save_progress
from tournaments.models import Match
from workers.play import play_game
from workers.seats import InProcessSeat

pytestmark = pytest.mark.django_db


def read(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def expected_events(seed: int, steps: int) -> list[Any]:
    state = load_game(GAME).new_state(2, seed, full_options())
    return [state.choose(record["choice"]) for record in _played(seed)[0][:steps]]


def test_it_streams_a_finished_match_from_its_replay_and_ends(world: World) -> None:
    lines = read(world.client("anonymous").get(f"/api/matches/{world.finished.pk}/feed/"))
    assert lines[0]["type"] == "match" and [s["bot"] for s in lines[0]["seats"]] == ["hungry", "lazy"]
    actions = [line for line in lines if line["type"] == "action"]
    assert [a["step"] for a in actions] == list(range(1, len(world.finished.replay.action_log()) + 1))
    assert lines[-1]["type"] == "end" and lines[-1]["status"] == "finished"
    assert lines[-1]["outcome"] == world.finished.replay.footer["outcome"]


def test_it_streams_a_running_match_so_far_with_public_events_and_no_choices(world: World) -> None:
    lines = read(world.client("anonymous").get(f"/api/matches/{world.running.pk}/feed/"))
    actions = [line for line in lines if line["type"] == "action"]
    assert [a["events"] for a in actions] == expected_events(RUNNING_SEED, len(live_actions_so_far()))
    assert all("choice" not in a and "view" not in a for a in actions)
    assert lines[-1] == {"type": "timeout", "steps": len(live_actions_so_far())}


def test_it_follows_a_running_match_to_its_end(world: World, settings: Any) -> None:
    settings.LUDUS_FEED_SECONDS, settings.LUDUS_FEED_POLL_SECONDS = 600, 0.01
    stream = iter(world.client("author").get(f"/api/matches/{world.running.pk}/feed/").streaming_content)
    first = [json.loads(next(stream)) for _ in range(1 + len(live_actions_so_far()))]
    assert first[-1]["step"] == len(live_actions_so_far())
    finish(world.running)  # the runner records the result while the spectator watches
    rest = [json.loads(line) for line in stream]
    all_actions, _ = _played(RUNNING_SEED)
    assert [line["step"] for line in rest[:-1]] == list(range(len(first), len(all_actions) + 1))
    assert rest[-1]["type"] == "end" and rest[-1]["status"] == "finished"


def test_it_restarts_when_a_retried_match_plays_again(world: World, settings: Any) -> None:
    settings.LUDUS_FEED_SECONDS, settings.LUDUS_FEED_POLL_SECONDS = 600, 0.01
    stream = iter(world.client("author").get(f"/api/matches/{world.running.pk}/feed/").streaming_content)
    [next(stream) for _ in range(1 + len(live_actions_so_far()))]
    save_progress(world.running.pk, 2, live_actions_so_far()[:1])  # attempt 2 has played one action so far
    assert json.loads(next(stream)) == {"type": "restart"}
    assert json.loads(next(stream))["step"] == 1
    Match.objects.filter(pk=world.running.pk).update(status=Match.Status.CANCELLED)
    assert json.loads(list(stream)[-1])["status"] == "cancelled"


def test_it_ends_at_once_for_a_cancelled_match(world: World) -> None:
    Match.objects.filter(pk=world.queued.pk).update(status=Match.Status.CANCELLED)
    lines = read(world.client("anonymous").get(f"/api/matches/{world.queued.pk}/feed/"))
    assert [line["type"] for line in lines] == ["match", "end"]


def test_it_streams_a_ladders_new_results_since_a_time(world: World) -> None:
    since = (world.finished.finished_at - timedelta(seconds=1)).isoformat()
    lines = read(world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/feed/", {"since": since}))
    results = [line for line in lines if line["type"] == "result"]
    assert [r["match"] for r in results] == [world.finished.pk]
    assert [s["bot"] for s in results[0]["seats"]] == ["hungry", "lazy"]
    assert lines[-1]["type"] == "timeout"


def test_it_streams_no_old_results_by_default(world: World) -> None:
    lines = read(world.client("anonymous").get(f"/api/ladders/{world.ladder.pk}/feed/"))
    assert [line["type"] for line in lines] == ["ladder", "timeout"]
    assert lines[0]["ladder"] == world.ladder.pk


def test_it_gives_a_404_for_a_missing_match(world: World) -> None:
    assert world.client("anonymous").get("/api/matches/999999999/feed/").status_code == 404


def test_it_reports_each_action_to_the_progress_hook(world: World) -> None:
    """The runner's hook: play_game calls on_action after every action with the log so far."""
    seen: list[int] = []
    game = load_game(GAME)
    players = [InProcessSeat("random", GAME, seat) for seat in range(2)]
    result = play_game(GAME, 2, 1, game.validate_options({"deck": "short"}), players,
                       on_action=lambda actions: seen.append(len(actions)))
    assert seen == list(range(1, len(result.actions) + 1))


def test_it_saves_progress_that_the_feed_reads(world: World) -> None:
    from workers.runner import ProgressRecorder

    recorder = ProgressRecorder(world.queued, interval=0)
    assert not MatchProgress.objects.filter(match=world.queued).exists()  # a first attempt has nothing to reset
    recorder(live_actions_so_far())
    assert MatchProgress.objects.get(match=world.queued).actions == live_actions_so_far()


def finish(match: Match) -> None:
    actions, outcome = _played(match.seed)
    game = load_game(GAME)
    header = replay_format.make_header(GAME, game.rules_version, full_options(), match.seed, {}, [{}, {}], match.pk)
    document = {"header": header, "actions": actions,
                "footer": replay_format.make_footer(outcome, [0, 0], [False, False])}
    Replay.from_document(match, document).save()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now())


# --- a resampled branch: every reader rebuilds the game the runner played -------------------------------------------


def resampled_branch(world: World, seed: int = 7) -> Match:
    """A branch of world.finished at step 6 with its hidden future re-dealt, played to its end by built-ins."""
    from workers.runner import run_match

    body = {"step": 6, "seats": {"1": "greedy", "2": "greedy"}, "resample": True, "seed": seed}
    answer = world.client("admin").post(f"/api/matches/{world.finished.pk}/branches/", body, format="json")
    assert answer.status_code == 201, answer.content
    child = Match.objects.get(pk=answer.json()["branches"][0]["id"])
    assert run_match(child.pk) == "finished"
    return child


def replayed_events(document: dict[str, Any], steps: int | None = None) -> list[Any]:
    from replays.verify import Resimulation

    sim = Resimulation(document["header"])
    return [sim.step(index, record) for index, record in enumerate(document["actions"][:steps])]


def as_running(match: Match) -> tuple[dict[str, Any], int]:
    """The match put back to running with all its actions but the last as progress; its replay document, and the
    number of actions in the progress."""
    document = Replay.objects.get(match=match).document()
    Replay.objects.filter(match=match).delete()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, finished_at=None)
    steps = len(document["actions"]) - 1
    save_progress(match.pk, 1, document["actions"][:steps])
    return document, steps


def test_it_streams_a_finished_resampled_branch_with_the_events_it_was_played_with(world: World) -> None:
    child = resampled_branch(world)
    document = Replay.objects.get(match=child).document()
    lines = read(world.client("anonymous").get(f"/api/matches/{child.pk}/feed/"))
    assert [line["events"] for line in lines if line["type"] == "action"] == replayed_events(document)
    assert lines[-1]["type"] == "end" and lines[-1]["status"] == "finished"


def test_it_streams_a_running_resampled_branch_with_the_events_it_was_played_with(world: World) -> None:
    child = resampled_branch(world)
    document, steps = as_running(child)
    lines = read(world.client("anonymous").get(f"/api/matches/{child.pk}/feed/"))
    assert [line["events"] for line in lines if line["type"] == "action"] == replayed_events(document, steps)
    assert lines[-1] == {"type": "timeout", "steps": steps}


# A world of its own (a committing test gets one): on the module's shared world, as `make check` runs this file, its
# feed ended with `end` instead of `error`; which earlier test's state causes that is not yet found.
@pytest.mark.django_db(transaction=True)
def test_a_feed_whose_actions_do_not_replay_ends_with_an_error_line_and_gives_its_slot_back(
        world: World, settings: Any) -> None:
    settings.LUDUS_FEED_MAX_PER_CLIENT = 1
    save_progress(world.running.pk, 1, [*live_actions_so_far(), {"seat": 0, "choice": 999, "ms": 1}])
    lines = read(world.client("anonymous").get(f"/api/matches/{world.running.pk}/feed/"))
    assert [line["type"] for line in lines][-2:] == ["action", "error"]
    assert lines[-1]["detail"].startswith(f"match {world.running.pk}'s actions do not replay: action "
                                          f"{len(live_actions_so_far())}: choice 999 is out of range")
    assert world.client("anonymous").get(f"/api/matches/{world.running.pk}/feed/").status_code == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.integration
def test_under_the_asgi_server_a_failed_feed_ends_its_chunked_reply_and_frees_its_slot(
        django_user_model: Any, celery_broker_url: str, tmp_path: Any) -> None:
    """gunicorn with uvicorn workers, one feed per client: four feeds that fail one after another each end with an
    error line (the chunked reply complete), and the next one opens at once."""
    from apiworld import make_world
    from test_feeds_server import Server, start_server
    from testkit import stop_process

    world = make_world(django_user_model)
    save_progress(world.running.pk, 1, [*live_actions_so_far(), {"seat": 0, "choice": 999, "ms": 1}])
    process, port, log = start_server(tmp_path, celery_broker_url, LUDUS_FEED_MAX_PER_CLIENT="1")
    try:
        server = Server(port, world)
        for _ in range(4):
            status, body = server.get(f"/api/matches/{world.running.pk}/feed/")  # IncompleteRead if cut short
            assert status == 200, body
            assert json.loads(body.splitlines()[-1])["type"] == "error", body[-300:]
    finally:
        stop_process(process)
        log.close()
