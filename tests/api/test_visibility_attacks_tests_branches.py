"""Visibility attacks on version tests, branches and seeds (docs/api.md "Who sees what", docs/branches.md,
docs/version-tests.md). Each test performs an attack as an outsider (anonymous, or a logged-in user who owns
nothing involved) and asserts the promise holds; the first five of them failed before their fixes.

Personas (tests/api/apiworld.py): alice (owner) keeps the public bot `hungry` and the private `stealth`; bob
(author) owns `lazy`; charlie (organiser); root (admin). world.finished is hungry against lazy, finished and over;
world.running is running with live progress; world.queued is a queued tournament match.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from apiworld import FINISHED_SEED, World, body_text, make_match
from django.test import Client

from replays.frames import frames
from tournaments.models import Match, VersionTest
from tournaments.version_tests import TestRequest, deal_seed, start_test
from tournaments.visibility import new_seed

pytestmark = pytest.mark.django_db


def page(user: Any, url: str) -> Any:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(url)


# --- version tests --------------------------------------------------------------------------------------------------


def started_test(world: World) -> VersionTest:
    """alice's test of hungry@1 against bob's lazy@1 (both public): a public test, its first batch queued."""
    return start_test(world.users["owner"], TestRequest(new=world.version.pk, base=world.other_version.pk,
                                                        batch_deals=2))


def test_a_cancelled_test_does_not_reveal_the_secret_seed_of_a_game_still_running(world: World) -> None:
    """Attack: wait for the owner to cancel a test while one of its games is being played (cancel stops only the
    queued games), then read the test's seed and derive the running game's deal."""
    test = started_test(world)
    game = test.games.select_related("match").order_by("deal", "swapped").first()
    assert game is not None
    Match.objects.filter(pk=game.match_id).update(status=Match.Status.RUNNING)
    assert world.client("owner").post(f"/api/tests/{test.pk}/cancel/").status_code == 200
    assert Match.objects.get(pk=game.match_id).status == Match.Status.RUNNING  # cancel leaves it playing
    # The running game's own seed is hidden, as the promise says...
    assert world.client("anonymous").get(f"/api/matches/{game.match_id}/").json()["seed"] is None
    # ...but the test's secret, from which it derives, is not.
    shown = world.client("anonymous").get(f"/api/tests/{test.pk}/").json()["seed"]
    derived = deal_seed(VersionTest(seed=shown), game.deal) if shown is not None else None
    assert shown is None, (f"anonymous read the test seed {shown} while match {game.match_id} runs; "
                           f"its deal {game.deal}'s seed = {derived}, the running match's seed = "
                           f"{Match.objects.get(pk=game.match_id).seed}")
    text = page(None, f"/tests/{test.pk}/").content.decode()
    assert f'id="test-seed">{test.seed}<' not in text, "the test page shows the seed too"


def test_a_version_test_does_not_name_a_bot_its_owner_has_since_made_private(world: World) -> None:
    """Attack: list the public tests after a bot in one went private; matches and standings then say
    "private bot", and docs/version-tests.md: a test with a private bot's version is its starter's and staff's."""
    test = started_test(world)
    bob_starts = start_test(world.users["author"], TestRequest(new=world.other_version.pk, base=world.version.pk,
                                                               batch_deals=1))
    answer = world.client("owner").patch(f"/api/bots/{world.bot.pk}/", {"visibility": "private"}, format="json")
    assert answer.status_code == 200, answer.content
    match_id = test.games.values_list("match_id", flat=True).first()
    assert "hungry" not in body_text(world.client("anonymous").get(f"/api/matches/{match_id}/"))  # the rule
    leaks = {}
    for role in ("anonymous", "author"):
        for url in ("/api/tests/", f"/api/tests/{test.pk}/", f"/api/tests/{bob_starts.pk}/"):
            response = world.client(role).get(url)
            if response.status_code == 200 and "hungry" in body_text(response):
                leaks[(role, url)] = re.findall(r'"(?:new|base)_label":"hungry@\d+"', body_text(response))
        for url in (f"/tests/{test.pk}/", "/tests/"):
            response = page(world.users.get(role), url)
            if response.status_code == 200 and "hungry" in response.content.decode():
                leaks[(role, url)] = ["hungry in the page"]
    assert not leaks, leaks


def test_version_test_deal_seeds_are_as_wide_as_every_other_seed(world: World) -> None:
    """Attack (offline): a running test game's seed is hidden, but a deal's seed was 31 bits wide, not
    62 like new_seed: 2**31 candidate decks can be tabulated once and matched against the
    public opening of any test game."""
    test = started_test(world)
    seeds = [deal_seed(test, deal) for deal in range(64)]
    assert max(seeds) >= 2**40, f"64 deal seeds, all below 2**31: max {max(seeds)} (new_seed gives up to 2**62)"


def test_resampled_branch_seeds_are_as_wide_as_every_other_seed(world: World) -> None:
    body = {"step": 3, "resample": True, "games": 8}
    answer = world.client("author").post(f"/api/matches/{world.finished.pk}/branches/", body, format="json")
    assert answer.status_code == 201, answer.content
    seeds = [Match.objects.get(pk=row["id"]).branch_resample for row in answer.json()["branches"]]
    assert max(seeds) >= 2**40, f"8 resample seeds, all below 2**31: {seeds} (new_seed gives up to 2**62)"


# --- branches: the compare page -------------------------------------------------------------------------------------


def test_the_compare_page_does_not_give_a_running_branchs_resample_seed_to_spectators(world: World) -> None:
    """Attack: an anonymous spectator opens a running resampled branch's compare page, takes the resample seed it
    prints, and rebuilds the branch's omniscient view (every hand, the re-dealt deck) from public data only: the
    parent's replay (over, so public) and that seed."""
    from test_api_feeds import as_running, resampled_branch

    child = resampled_branch(world, seed=new_seed())  # the requester's secret: a seed nobody else chose
    as_running(child)
    anonymous = world.client("anonymous")
    assert anonymous.get(f"/api/matches/{child.pk}/frames/").status_code in (401, 403)  # the rule: closed
    text = page(None, f"/replays/{child.pk}/compare/").content.decode()
    found = re.search(r"resample seed (\d+)", text)
    rebuilt_equal = False
    if found:
        leaked = int(found.group(1))
        parent = anonymous.get(f"/api/matches/{world.finished.pk}/replay/").json()
        actions = anonymous.get(f"/api/matches/{world.finished.pk}/replay/actions/").json()["actions"]
        step = child.branch_step or 0
        prefix = [{k: a[k] for k in ("seat", "choice", "ms") if k in a} for a in actions[:step]]
        header = dict(parent["header"], match=child.pk,
                      branch={"parent": world.finished.pk, "step": step, "force": None, "resample": leaked})
        header["seats"] = [{} for _ in header["seats"]]
        mine = frames({"header": header, "actions": prefix}, step, step + 1)[0]["view"]
        staff = world.client("admin").get(f"/api/matches/{child.pk}/frames/", {"start": step, "stop": step + 1})
        rebuilt_equal = mine == staff.json()["frames"][0]["view"]
    assert not found, (f"the compare page of running branch {child.pk} prints its resample seed "
                       f"{found.group(1) if found else None}; omniscient view at the branch point rebuilt by an "
                       f"anonymous visitor equals staff's: {rebuilt_equal}")


def test_the_compare_page_does_not_tell_a_not_over_parents_choice(world: World) -> None:
    """Attack: staff branch a match whose set is still playing, forcing an option at step K. Anyone opening the
    branch's compare page learns whether the parent chose that option: a choice index of a match not over."""
    make_match(ladder=world.ladder, seed=FINISHED_SEED, versions=(world.other_version, world.version),
               status=Match.Status.QUEUED)  # world.finished's set is still playing: it is not over
    assert world.client("author").get(f"/api/matches/{world.finished.pk}/replay/actions/").status_code == 404
    answer = world.client("admin").post(f"/api/matches/{world.finished.pk}/branches/", {"step": 2, "force": 0},
                                        format="json")
    assert answer.status_code == 201, answer.content
    child = answer.json()["branches"][0]["id"]
    from replays.models import Replay
    from replays.verify import verify_document

    # the branch played (its replay stored), so the page compares both moves
    document = Replay.objects.get(match=world.finished).document()
    document = dict(document, header=dict(document["header"], match=child,
                                          branch={"parent": world.finished.pk, "step": 2, "force": 0,
                                                  "resample": None}))
    document["actions"] = [*document["actions"][:1], {"seat": document["actions"][1]["seat"], "choice": 0, "ms": 0,
                                                      "forced": True}, *document["actions"][2:]]
    document["footer"] = dict(document["footer"], digest=verify_document(document)["digest"])
    Replay.from_document(Match.objects.get(pk=child), document).save()
    Match.objects.filter(pk=child).update(status=Match.Status.FINISHED)
    for who in (None, world.users["author"]):
        text = page(who, f"/replays/{child}/compare/").content.decode()
        said = "The option forced is the one the parent played" in text or '"same": true' in text
        assert not said, (f"{who}: the compare page says parent match {world.finished.pk} (not over) chose option "
                          "0 at step 2")


# --- things that held (kept as regression checks) -------------------------------------------------------------------


@pytest.mark.parametrize("role", ["anonymous", "author"])
def test_a_running_matchs_scores_and_log_give_outsiders_only_public_views(world: World, role: str) -> None:
    api = world.client(role)
    for view in ("0", "1", "omniscient"):
        answer = api.get(f"/replays/{world.running.pk}/scores.json", {"view": view})
        assert answer.status_code == 403 or (role == "author" and view == "1"), (view, answer.status_code)
    log = api.get(f"/replays/{world.running.pk}/log.json").json()
    assert set(log["views"]) <= {"public", "1"} and all("choice" not in entry for entry in log["log"])
    assert api.get(f"/replays/{world.running.pk}/export/").status_code == 404
    assert api.get(f"/api/matches/{world.running.pk}/analysis/").json() == {"analyses": []}


def test_seat_logs_and_sources_stay_with_their_owner(world: World) -> None:
    bob, users = world.client("author"), world.users
    assert page(users["author"], f"/replays/{world.finished.pk}/seats/0/log.json").status_code == 404  # alice's
    assert page(users["author"], f"/replays/{world.finished.pk}/seats/1/log.json").status_code == 200  # his own
    assert page(None, f"/replays/{world.running.pk}/seats/0/log.json").status_code == 404
    assert "source_base64" not in bob.get(f"/api/versions/{world.version.pk}/").json()
    assert bob.get(f"/api/versions/{world.private_version.pk}/").status_code == 404
    rows = bob.get("/api/matches/", {"bot": world.bot.pk}).json()["results"]
    assert all(seat["log"] is None for row in rows for seat in row["seats"] if seat["number"] == 0)


def test_a_private_bots_smoke_match_seed_is_as_wide_as_every_other_seed(world: World) -> None:
    """A private bot's validation match never opens (its seed, views, choices), yet its public view is open to all:
    the seed is HMAC-keyed but cut to 32 bits (workers/validation.py smoke_seed), so it can be searched."""
    from workers.validation import smoke_seed

    seeds = [smoke_seed(world.private_version)] + [smoke_seed(v) for v in (world.version, world.other_version)]
    assert max(seeds) >= 2**40, f"smoke seeds {seeds}: all below 2**32"
