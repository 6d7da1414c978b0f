"""Validation of new versions (workers/validation.py): a smoke match in the real bubblewrap sandbox."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from tournaments.bot_lifecycle import revalidate_stale, upload_bot_version
from tournaments.models import BotVersion
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
