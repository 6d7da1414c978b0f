"""Validation of new versions (workers/validation.py): a smoke match in the real bubblewrap sandbox."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from replays.links import viewer_url
from replays.models import Replay
from replays.verify import verify_document
from tournaments.bot_lifecycle import revalidate_stale, upload_bot_version
from tournaments.models import Bot, BotVersion, Ladder, Match
from tournaments.pages.queries import validation_match_id
from workers.validation import ValidationUnavailable, claim_version, stale_versions, validate_version

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
FIXTURES = ROOT / "tests" / "tournaments" / "fixtures"


def upload(owner: Any, path: Path, name: str = "candidate") -> BotVersion:
    return upload_bot_version(owner, name, "evolution", path.name, path.read_bytes())


def state(version: BotVersion) -> tuple[str, str]:
    version.refresh_from_db()
    return version.status, version.validation_log


def validated(owner: Any, path: Path, visibility: str = "public", name: str = "candidate") -> tuple[BotVersion, Match]:
    version = upload(owner, path, name)
    Bot.objects.filter(pk=version.bot_id).update(visibility=visibility)
    validate_version(version.pk)
    match_id = validation_match_id(version.pk)
    assert match_id is not None
    return version, Match.objects.get(pk=match_id)


def as_user(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def frames_url(match: Match, view: str) -> str:
    """The frames the viewer reads for a view: the API's, with the view's seat (none for the omniscient one)."""
    return f"/api/matches/{match.pk}/frames/" + ("" if view == "omniscient" else f"?seat={view}")


# --- the kept smoke match: who may open what (attacks first) -------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["bob", "anonymous"])
def test_another_user_sees_no_seat_view_choice_seed_or_source_of_a_private_bots_validation(
    alice: Any, bob: Any, role: str
) -> None:
    version, match = validated(alice, FIXTURES / "good_bot.py", visibility="private")
    client = as_user(bob if role == "bob" else None)
    base = f"/replays/{match.pk}"
    for view in ("0", "omniscient"):
        refused = client.get(frames_url(match, view))
        if role == "bob":
            assert refused.status_code == 403 and "private bot's validation match" in refused.json()["detail"], view
        else:
            assert refused.status_code == 401, view  # log in: an anonymous reader is nobody's owner
        assert client.get(f"{base}/scores.json?view={view}").status_code == 403, view
    assert client.get(f"{base}/seats/0/log.json").status_code == 404
    assert client.get(f"{base}/export/").status_code == 404
    assert client.get(f"/api/matches/{match.pk}/replay/").status_code == 404
    assert client.get(f"/api/matches/{match.pk}/replay/actions/").status_code == 404
    row = client.get(f"/api/matches/{match.pk}/").json()
    assert row["seed"] is None and row["seats"][0]["bot_name"] == "private bot" and row["seats"][0]["log"] is None
    assert client.get(f"/api/versions/{version.pk}/").status_code == 404  # its source and log
    assert client.get(f"/versions/{version.pk}/").status_code == 404
    viewer = client.get(f"{base}/").content.decode()
    assert "candidate" not in viewer and "good bot: ready" not in viewer
    public = client.get(frames_url(match, "public") + "&start=0&stop=40").json()["frames"]
    assert all("choice" not in (frame.get("decided") or {}) for frame in public)  # no choice of its seat either


@pytest.mark.django_db
def test_the_owner_and_staff_open_a_private_bots_validation_match(alice: Any, admin_user: Any) -> None:
    version, match = validated(alice, FIXTURES / "good_bot.py", visibility="private")
    owner, staff, base = as_user(alice), as_user(admin_user), f"/replays/{match.pk}"
    for client in (owner, staff):
        assert f'href="/replays/{match.pk}/#view=0"' in client.get(f"/versions/{version.pk}/").content.decode()
    assert owner.get(frames_url(match, "0")).status_code == 200
    assert "good bot: ready" in owner.get(f"{base}/seats/0/log.json").json()["log"]
    assert owner.get(frames_url(match, "1")).status_code == 403  # a built-in's seat: not the owner's
    for view in ("0", "1", "omniscient"):
        assert staff.get(frames_url(match, view)).status_code == 200, view
    assert staff.get(f"{base}/export/").status_code == 200


@pytest.mark.django_db
def test_anyone_opens_a_public_bots_validation_match_but_not_its_stderr(alice: Any, bob: Any) -> None:
    _, match = validated(alice, FIXTURES / "good_bot.py")
    client, base = as_user(bob), f"/replays/{match.pk}"
    for view in ("0", "omniscient"):
        assert client.get(frames_url(match, view)).status_code == 200, view
    assert client.get(f"{base}/seats/0/log.json").status_code == 404
    assert client.get(f"{base}/export/").status_code == 200


# --- the kept smoke match: what is stored ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_smoke_match_is_kept_unrated_with_its_seats_and_verified_replay_and_linked(alice: Any) -> None:
    version, match = validated(alice, FIXTURES / "out_of_range.py")
    ladder = Ladder.objects.get(pk=match.ladder_id)
    assert ladder.name == "validation evolution" and ladder.paused and ladder.created_by.username == "ludus"
    assert match.status == "finished" and not match.rated and match.rating_seq is None
    seats = list(match.seats.select_related("bot_version").order_by("number"))
    assert [s.bot_version.builtin for s in seats] == ["", "greedy", "random"] and seats[0].bot_version == version
    assert seats[0].forfeited and seats[0].faults == 3 and all(s.rating_mu_after is None for s in seats)
    replay = Replay.objects.get(match=match)
    assert replay.header["match"] == match.pk
    assert verify_document(replay.document())["digest"] == replay.footer["digest"]  # the runner's document
    _, log = state(version)
    assert f"Watch it: {viewer_url(match.pk, view=0)}\n" in log
    fault_links = re.findall(rf"^    \S+/replays/{match.pk}/#step=(\d+)&view=0$", log, re.MULTILINE)
    fault_steps = re.findall(r"^  step (\d+) ", log, re.MULTILINE)
    assert fault_links == fault_steps and len(fault_steps) == 3  # each fault opens the viewer at its step
    faulted = [str(i + 1) for i, a in enumerate(replay.action_log()) if a.get("fault") and a["seat"] == 0]
    assert fault_steps == faulted  # the steps the log names are the faults in the replay


@pytest.mark.django_db
def test_the_version_page_links_its_validation_match_for_whoever_may_see_the_version(alice: Any, bob: Any) -> None:
    version, match = validated(alice, FIXTURES / "good_bot.py")
    link = f"/replays/{match.pk}/#view=0"
    for user in (alice, bob, None):
        page = as_user(user).get(f"/versions/{version.pk}/").content.decode()
        assert f'href="{link}"' in page and "Watch the validation match" in page
    assert as_user(bob).get(link.split("#")[0]).status_code == 200
    pending = upload(alice, FIXTURES / "good_bot.py", name="not-yet")
    assert "Watch the validation match" not in as_user(alice).get(f"/versions/{pending.pk}/").content.decode()


@pytest.mark.django_db
def test_a_sandbox_failure_keeps_no_match(alice: Any, settings: Any) -> None:
    version = upload(alice, FIXTURES / "good_bot.py")
    settings.LUDUS_SANDBOX = "no-such-sandbox"
    with pytest.raises(ValidationUnavailable):
        validate_version(version.pk)
    assert validation_match_id(version.pk) is None and not Match.objects.exists() and not Replay.objects.exists()


@pytest.mark.django_db
def test_an_organisers_ladder_named_like_the_validation_ladder_is_left_alone(alice: Any, bob: Any) -> None:
    squatted = Ladder.objects.create(name="validation evolution", game="evolution", players_per_match=3,
                                     created_by=bob)
    _, match = validated(alice, FIXTURES / "good_bot.py", visibility="private")
    assert match.ladder_id != squatted.pk and match.ladder.name.startswith("validation evolution ")
    assert as_user(bob).get(frames_url(match, "0")).status_code == 403


@pytest.mark.django_db
def test_a_good_bot_becomes_active_with_a_log_of_its_smoke_match(alice: Any) -> None:
    version = upload(alice, FIXTURES / "good_bot.py")
    assert validate_version(version.pk) == "active"
    status, log = state(version)
    assert status == "active"
    assert "Smoke match: evolution, 3 players" in log and "against greedy, random" in log
    assert "0 fault(s), no forfeit" in log and "Verdict: active" in log
    assert "good bot: ready" in log  # its stderr, for its author


@pytest.mark.django_db
def test_the_example_bot_passes(alice: Any) -> None:
    version = upload(alice, EXAMPLE)
    assert validate_version(version.pk) == "active"


@pytest.mark.django_db
def test_a_bot_that_crashes_at_start_is_rejected_with_its_traceback(alice: Any) -> None:
    version = upload(alice, FIXTURES / "crash_at_start.py")
    assert validate_version(version.pk) == "rejected"
    status, log = state(version)
    assert status == "rejected"
    assert "Verdict: rejected: the bot forfeited" in log
    assert "crash bot: loading weights.json" in log
    assert "RuntimeError: weights.json is missing" in log and "Traceback" in log
    assert re.search(r"^  step \d+ \(\w+\): died: the bot exited with status 1$", log, re.MULTILINE)  # its own cause


@pytest.mark.django_db
def test_a_bot_that_answers_out_of_range_is_rejected_with_each_fault(alice: Any) -> None:
    version = upload(alice, FIXTURES / "out_of_range.py")
    assert validate_version(version.pk) == "rejected"
    _, log = state(version)
    faults = [line for line in log.splitlines() if line.startswith("  step ")]
    assert len(faults) == 3  # LUDUS_MAX_FAULTS: then the seat forfeits and is not asked again
    assert all("out_of_range" in line for line in faults)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["ponder_child.py", "ponder_thread.py"])
def test_a_bot_the_freezer_caught_computing_off_its_turn_is_rejected(alice: Any, name: str) -> None:
    """A bot that computes while another seat holds the decision (in a child, or in a thread of its own) plays without
    a fault once the freezer has it, and would be let in: validation refuses it, saying what it was caught at."""
    version = upload(alice, ROOT / "tests" / "workers" / "bots" / name)
    assert validate_version(version.pk) == "rejected"
    status, log = state(version)
    assert status == "rejected"
    assert re.search(r"^Verdict: rejected: the freezer caught the bot computing while another seat held the decision: "
                     r"it used \d+ ms of CPU after its reply to decision \d+", log, re.MULTILINE), log
    assert 'docs/bots.md, "The freezer"' in log


@pytest.mark.django_db
def test_running_validation_twice_changes_nothing(alice: Any) -> None:
    version = upload(alice, FIXTURES / "good_bot.py")
    assert validate_version(version.pk) == "active"
    first = BotVersion.objects.values().get(pk=version.pk)
    assert validate_version(version.pk) == "already active"
    assert BotVersion.objects.values().get(pk=version.pk) == first


@pytest.mark.django_db
def test_a_claim_is_taken_once(alice: Any) -> None:
    version = upload(alice, FIXTURES / "good_bot.py")
    assert claim_version(version.pk) is not None
    assert claim_version(version.pk) is None  # a second delivery while the first validates
    assert validate_version(version.pk) == "already validating"


@pytest.mark.django_db
def test_a_stale_claim_of_a_dead_validator_is_taken_over(alice: Any, settings: Any) -> None:
    version = upload(alice, FIXTURES / "good_bot.py")
    long_ago = timezone.now() - timedelta(seconds=settings.LUDUS_VALIDATION_LEASE_SECONDS + 5)
    assert claim_version(version.pk, now=long_ago) is not None
    assert validate_version(version.pk) == "active"


@pytest.mark.django_db
def test_a_rejected_or_builtin_version_is_never_validated(alice: Any, builtin_versions: dict[str, Any]) -> None:
    rejected = upload_bot_version(alice, "broken", "evolution", "bot.py", b"def (:\n")
    assert validate_version(rejected.pk) == "already rejected"
    assert validate_version(builtin_versions["greedy"].pk) == "already active"
    assert validate_version(10**9) == "missing"


@pytest.mark.django_db
def test_a_broken_sandbox_leaves_the_version_pending_for_a_retry(alice: Any, settings: Any) -> None:
    version = upload(alice, FIXTURES / "good_bot.py")
    settings.LUDUS_SANDBOX = "no-such-sandbox"  # a misconfigured worker: the host's fault, not the bot's
    with pytest.raises(ValidationUnavailable, match="no-such-sandbox"):
        validate_version(version.pk)
    status, log = state(version)
    assert status == "pending" and "infrastructure problem" in log and "will be retried" in log
    settings.LUDUS_SANDBOX = "bwrap"
    assert validate_version(version.pk) == "active"


@pytest.mark.django_db
def test_lost_validations_are_found_for_the_sweeper(alice: Any, settings: Any) -> None:
    fresh = upload(alice, FIXTURES / "good_bot.py")
    lost_pending = upload(alice, FIXTURES / "good_bot.py", name="lost-pending")
    lost_claim = upload(alice, FIXTURES / "good_bot.py", name="lost-claim")
    long_ago = timezone.now() - timedelta(seconds=settings.LUDUS_VALIDATION_LEASE_SECONDS + 5)
    BotVersion.objects.filter(pk=lost_pending.pk).update(created_at=long_ago)
    BotVersion.objects.filter(pk=lost_claim.pk).update(status="validating", validating_since=long_ago)
    assert stale_versions() == [lost_pending.pk, lost_claim.pk]
    assert fresh.pk not in stale_versions()


@pytest.mark.django_db(transaction=True)
@pytest.mark.integration
def test_validation_runs_through_a_real_celery_worker(
    celery_worker_process: Any, alice: Any, wait_until: Callable[..., Any]
) -> None:
    good = upload(alice, FIXTURES / "good_bot.py")
    crash = upload(alice, FIXTURES / "crash_at_start.py", name="crashy")
    wait_until(lambda: state(good)[0] == "active" and state(crash)[0] == "rejected", 180,
               "the worker to validate both uploads")
    assert "RuntimeError: weights.json is missing" in state(crash)[1]
    assert "good bot: ready" in state(good)[1]

    # A validation lost with a dead worker: the sweeper (a beat task) sends it to the worker again.
    lost = upload(alice, FIXTURES / "good_bot.py", name="lost")
    wait_until(lambda: state(lost)[0] == "active", 180, "the worker to validate the third upload")
    BotVersion.objects.filter(pk=lost.pk).update(status="validating", validating_since=timezone.now() - timedelta(
        hours=1))
    assert revalidate_stale() == 1
    wait_until(lambda: state(lost)[0] == "active", 180, "the sweeper's dispatch to be validated")


@pytest.mark.django_db
def test_the_smoke_seed_comes_from_the_server_secret_not_from_the_upload(alice: Any,
                                                                          settings: Any) -> None:
    from workers.validation import smoke_match_for

    version = upload(alice, EXAMPLE)
    seed = smoke_match_for(version).seed
    assert seed == smoke_match_for(version).seed  # a rerun plays the same game
    assert seed != int(version.sha256[:8], 16)  # the old seed, which anyone could compute from the file
    settings.SECRET_KEY = "another-secret"
    assert smoke_match_for(version).seed != seed  # without the secret, the seed cannot be predicted
    again = upload(alice, EXAMPLE, name="same-file-again")
    settings.SECRET_KEY = "x" * 50
    assert smoke_match_for(again).seed != smoke_match_for(version).seed  # the same file, another version
