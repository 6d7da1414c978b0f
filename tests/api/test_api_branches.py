"""POST and GET /api/matches/{id}/branches/ (docs/branches.md): the attacks first, then one clear 400 per bad input.

Personas (tests/api/apiworld.py): alice (owner) keeps the public bot `hungry` and the private `stealth`; bob
(author) owns `lazy`; charlie (organiser); root is staff. world.finished is alice's hungry against bob's lazy,
finished and over.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from apiworld import FINISHED_SEED, World, finished_document, make_match

from replays.models import Replay
from replays.verify import verify_document
from tournaments.builtins import system_user
from tournaments.models import Ladder, Match, Seat
from tournaments.system_ladders import BRANCHES_LADDER, VALIDATION_LADDER

pytestmark = pytest.mark.django_db
MISSING = 987_654_321


def branch(world: World, role: str, match: Match | None = None, **body: Any) -> Any:
    parent = match or world.finished
    return world.client(role).post(f"/api/matches/{parent.pk}/branches/", body, format="json")


def a_set_still_playing(world: World) -> Match:
    """The other game of world.finished's set (same ladder, same seed): queued, so world.finished is not over."""
    return make_match(ladder=world.ladder, seed=FINISHED_SEED, versions=(world.other_version, world.version),
                      status=Match.Status.QUEUED)


def steps(match: Match) -> int:
    return len(Replay.objects.get(match=match).action_log())


# --- the attacks ----------------------------------------------------------------------------------------------------


def test_nobody_but_staff_branches_a_finished_match_whose_set_is_still_playing(world: World) -> None:
    """The deck of the next game of the set is this game's deck: a branch would deal it to the requester."""
    a_set_still_playing(world)
    for role in ("owner", "author", "organiser"):  # alice and bob each own a seat
        answer = branch(world, role, step=3)
        assert answer.status_code == 403, (role, answer.content)
        assert "only staff may branch it now" in answer.json()["detail"]
    assert not Match.objects.filter(parent=world.finished).exists()
    assert branch(world, "admin", step=3).status_code == 201


def test_a_seat_owner_cannot_branch_a_running_match_to_read_the_deck(world: World) -> None:
    for role in ("owner", "admin"):
        answer = branch(world, role, match=world.running, step=1)
        assert answer.status_code == 400, answer.content
        assert answer.json() == {"match": [f"match {world.running.pk} is running: only a finished match can be "
                                           "branched (its replay is the branch's past)"]}
    assert not Match.objects.filter(parent=world.running).exists()


def test_anonymous_visitors_cannot_branch(world: World) -> None:
    assert branch(world, "anonymous", step=1).status_code in (401, 403)
    assert not Match.objects.filter(parent=world.finished).exists()


def test_a_private_validation_match_is_branched_by_staff_only(world: World) -> None:
    ladder = Ladder.objects.create(name=f"{VALIDATION_LADDER}evolution", game="evolution", created_by=system_user(),
                                   players_per_match=2, paused=True)
    smoke = make_match(ladder=ladder, seed=21, versions=(world.private_version, world.other_version),
                       status=Match.Status.FINISHED)
    Replay.from_document(smoke, finished_document(smoke.pk, world.private_version.pk, world.other_version.pk,
                                                  seed=21)).save()
    for role in ("owner", "author", "anonymous"):
        assert branch(world, role, match=smoke, step=2).status_code in (401, 403), role
    assert branch(world, "admin", match=smoke, step=2).status_code == 201


def test_an_author_cannot_seat_someone_elses_private_version(world: World) -> None:
    private = branch(world, "author", step=2, seats={"1": str(world.private_version.pk)})
    missing = branch(world, "author", step=2, seats={"1": str(MISSING)})
    assert private.status_code == missing.status_code == 400
    assert private.content.decode().replace(str(world.private_version.pk), "ID") == \
        missing.content.decode().replace(str(MISSING), "ID")
    assert "stealth" not in private.content.decode()
    assert not Seat.objects.filter(bot_version=world.private_version).exists()


def test_a_private_seat_goes_on_only_for_its_owner(world: World) -> None:
    match = make_match(ladder=world.ladder, seed=31, versions=(world.private_version, world.other_version),
                       status=Match.Status.FINISHED)
    Replay.from_document(match, finished_document(match.pk, world.private_version.pk, world.other_version.pk,
                                                  seed=31)).save()
    kept = branch(world, "author", match=match, step=2)
    assert kept.status_code == 400
    assert kept.json() == {"seats": ["seat 1 is a private bot you may not seat: give it another bot"]}
    assert branch(world, "author", match=match, step=2, seats={"1": "greedy"}).status_code == 201
    answer = branch(world, "owner", match=match, step=2)
    assert answer.status_code == 201, answer.content
    assert answer.json()["branches"][0]["seats"][0]["bot_version"] == world.private_version.pk


def finish_branch(branch_id: int, parent: Match, step: int) -> Match:
    """The branch played by bots that play the parent's way: the parent's replay with the branch point."""
    match = Match.objects.get(pk=branch_id)
    document = copy.deepcopy(Replay.objects.get(match=parent).document())
    document["header"] = dict(document["header"], match=match.pk,
                              branch={"parent": parent.pk, "step": step, "force": None, "resample": None})
    document["footer"]["digest"] = verify_document(document)["digest"]
    Replay.from_document(match, document).save()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    Seat.objects.filter(match=match, number=0).update(log="alice-BRANCH-LOG")
    return match


def test_a_staff_branch_of_a_match_that_is_not_over_keeps_the_parents_secrets(world: World) -> None:
    sibling = a_set_still_playing(world)
    answer = branch(world, "admin", step=3)
    assert answer.status_code == 201
    child = finish_branch(answer.json()["branches"][0]["id"], world.finished, 3)
    bob = world.client("author")
    assert bob.get(f"/api/matches/{child.pk}/").json()["seed"] is None
    assert bob.get(f"/api/matches/{child.pk}/frames/").status_code == 403  # the omniscient view
    assert bob.get(f"/api/matches/{child.pk}/replay/actions/").status_code in (403, 404)
    assert bob.get(f"/api/matches/{child.pk}/frames/?seat=0").status_code == 403  # alice's seat
    Match.objects.filter(pk=sibling.pk).update(status=Match.Status.FINISHED)
    assert bob.get(f"/api/matches/{child.pk}/").json()["seed"] == FINISHED_SEED
    assert bob.get(f"/api/matches/{child.pk}/frames/").status_code == 200


def test_a_branch_seat_log_is_for_its_bots_owner_only(world: World) -> None:
    answer = branch(world, "author", step=3)
    assert answer.status_code == 201
    child = finish_branch(answer.json()["branches"][0]["id"], world.finished, 3)
    for role in ("author", "anonymous", "organiser"):
        assert "alice-BRANCH-LOG" not in world.client(role).get(f"/api/matches/{child.pk}/").content.decode(), role
        assert world.client(role).get(f"/replays/{child.pk}/seats/0/log.json").status_code in (403, 404), role
    assert "alice-BRANCH-LOG" in world.client("owner").get(f"/api/matches/{child.pk}/").content.decode()


# --- what a branch is -----------------------------------------------------------------------------------------------


def test_a_branch_is_an_unrated_match_of_the_branches_ladder_that_replays_the_parents_first_steps(
        world: World) -> None:
    answer = branch(world, "author", step=4, seats={"2": "greedy"})
    assert answer.status_code == 201, answer.content
    [row] = answer.json()["branches"]
    assert (row["parent"], row["branch_step"], row["rated"], row["status"]) == (world.finished.pk, 4, False, "queued")
    child = Match.objects.get(pk=row["id"])
    assert child.ladder is not None and child.ladder.name == f"{BRANCHES_LADDER}evolution" and child.ladder.paused
    assert (child.seed, child.options, child.branch_force, child.branch_resample) == (
        world.finished.seed, world.finished.options, None, None)
    parent_actions = Replay.objects.get(match=world.finished).action_log()
    assert child.branch_prefix == [{key: r[key] for key in ("seat", "choice", "ms")} for r in parent_actions[:4]]
    assert [s.bot_version.bot.name for s in child.seats.order_by("number")] == ["hungry", "greedy"]
    listed = world.client("anonymous").get(f"/api/matches/{world.finished.pk}/branches/").json()["branches"]
    assert [b["id"] for b in listed] == [child.pk]


def test_a_forced_branch_keeps_one_step_less_and_plays_the_option(world: World) -> None:
    answer = branch(world, "author", step=1, force=1)
    assert answer.status_code == 201, answer.content
    child = Match.objects.get(pk=answer.json()["branches"][0]["id"])
    assert child.branch_prefix == [{"seat": child.branch_prefix[0]["seat"], "choice": 1, "ms": 0, "forced": True}]
    assert child.branch_force == 1


def test_resampled_games_each_get_their_own_seed_derived_from_the_request_seed(world: World) -> None:
    first = branch(world, "author", step=2, resample=True, games=3, seed=7).json()["branches"]
    again = branch(world, "author", step=2, resample=True, games=3, seed=7).json()["branches"]
    seeds = [Match.objects.get(pk=row["id"]).branch_resample for row in first]
    assert len(set(seeds)) == 3 and None not in seeds
    assert seeds == [Match.objects.get(pk=row["id"]).branch_resample for row in again]


# --- bad input: one clear 400 each ----------------------------------------------------------------------------------


def bad_inputs(world: World) -> list[tuple[dict[str, Any], dict[str, list[str]]]]:
    last = steps(world.finished)
    return [
        ({"step": last + 5}, {"step": [f"step {last + 5} is not a step to branch from: the match has steps 0 to "
                                       f"{last} and is over after step {last}; give 0 to {last - 1}"]}),
        ({"step": last}, {"step": [f"step {last} is not a step to branch from: the match has steps 0 to {last} and "
                                   f"is over after step {last}; give 0 to {last - 1}"]}),
        ({"step": 0, "force": 0}, {"step": [f"step 0 cannot be forced: the match's decisions are steps 1 to "
                                            f"{last}"]}),
        ({"step": 2, "seats": {"7": "greedy"}}, {"seats": [f"seat 7 is not a seat of match {world.finished.pk}: its "
                                                           "seats are 1 to 2 (counted from 1, as on the pages)"]}),
        ({"step": 2, "seats": {"0": "greedy"}}, {"seats": [f"seat 0 is not a seat of match {world.finished.pk}: its "
                                                           "seats are 1 to 2 (counted from 1, as on the pages)"]}),
        ({"step": 2, "seats": {"x": "greedy"}}, {"seats": ["'x' is not a seat number"]}),
        ({"step": 2, "seats": {"1": "nobody"}}, {"seats": ["seat 1: 'nobody' is neither a built-in bot (greedy, "
                                                           "random) nor a bot version id"]}),
        ({"step": 2, "games": 0}, {"games": ["games must be 1 to 20, got 0"]}),
        ({"step": 2, "games": 21, "resample": True}, {"games": ["games must be 1 to 20, got 21"]}),
        ({"step": 2, "games": 2}, {"games": ["more than one game needs resample: without it every game has the "
                                             "parent's hidden future"]}),
        ({"step": 2, "seed": 5}, {"seed": ["seed chooses the re-dealt futures: give resample too"]}),
        ({"step": 2, "colour": "red"}, {"colour": ["unknown field 'colour'"]}),
        ({}, {"step": ["This field is required."]}),
    ]


def test_each_bad_input_gets_one_clear_error(world: World) -> None:
    for body, expected in bad_inputs(world):
        answer = branch(world, "author", **body)
        assert (answer.status_code, answer.json()) == (400, expected), body
    assert not Match.objects.filter(parent=world.finished).exists()


def test_a_forced_option_out_of_range_is_named_with_its_decision(world: World) -> None:
    answer = branch(world, "author", step=1, force=99)
    assert answer.status_code == 400
    [message] = answer.json()["force"]
    assert message == "option 99 is not one of the 4 options of step 1 (seat 2's food_card); give 0 to 3"


def test_an_inactive_or_other_games_version_cannot_take_a_seat(world: World, django_user_model: Any) -> None:
    world.other_version.bot.game = "marine"
    world.other_version.bot.save()
    answer = branch(world, "author", step=2, seats={"1": str(world.other_version.pk)})
    assert answer.json() == {"seats": ["seat 1: lazy@1 is not an active evolution bot"]}


# --- a resampled branch's frames ------------------------------------------------------------------------------------


def test_a_running_resampled_branchs_frames_are_the_ones_it_was_played_with(world: World) -> None:
    from test_api_feeds import as_running, resampled_branch

    from replays.frames import frames

    child = resampled_branch(world)
    document, steps = as_running(child)
    start = max(0, steps - 99)
    answer = world.client("admin").get(f"/api/matches/{child.pk}/frames/", {"start": start, "stop": steps + 1})
    assert answer.status_code == 200, answer.content[:300]
    expected = frames(dict(document, actions=document["actions"][:steps]), start, steps + 1)
    assert [f["view"] for f in answer.json()["frames"]] == [f["view"] for f in expected]


def test_frames_of_actions_that_do_not_replay_are_a_json_error_not_an_html_500(world: World) -> None:
    from apiworld import live_actions_so_far

    from replays.progress import save_progress

    save_progress(world.running.pk, 1, [*live_actions_so_far(), {"seat": 0, "choice": 999, "ms": 1}])
    client = world.client("admin")
    client.raise_request_exception = False
    answer = client.get(f"/api/matches/{world.running.pk}/frames/")
    assert answer.status_code == 500 and answer["Content-Type"] == "application/json", answer.content[:300]
    assert f"match {world.running.pk}'s actions do not replay" in answer.json()["detail"]
