"""upload_bot_version and flag_faulty_bots (tournaments/bot_lifecycle.py) on the real database."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments.bot_lifecycle import BadUpload, flag_faulty_bots, upload_bot_version
from tournaments.models import Bot, BotVersion, Ladder, Match, Seat
from workers.validation import validate_version

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")


def upload(owner: Any, data: bytes | None = None, filename: str = "bot.py", name: str = "hungry",
           game: str = "evolution", **kw: Any) -> BotVersion:
    return upload_bot_version(owner, name, game, filename, EXAMPLE.read_bytes() if data is None else data, **kw)


def test_it_creates_the_bot_and_a_pending_version_one(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        version = upload(alice, description="feeds the hungriest")
    assert len(callbacks) == 1  # validation is enqueued once the upload commits
    version.refresh_from_db()
    assert (version.number, version.status, version.filename) == (1, "pending", "bot.py")
    assert version.bot.owner == alice and version.bot.game == "evolution"
    assert version.bot.description == "feeds the hungriest"
    assert bytes(version.source) == EXAMPLE.read_bytes() and version.size == len(EXAMPLE.read_bytes())


def test_it_stores_a_zip_as_uploaded(alice: Any) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("hungry/main.py", EXAMPLE.read_bytes())
        archive.writestr("hungry/notes.md", b"# notes\n")
    version = upload(alice, buffer.getvalue(), "Hungry Bot.ZIP")
    assert version.filename == "Hungry_Bot.zip" and version.status == "pending"
    assert bytes(version.source) == buffer.getvalue()


def test_a_syntax_error_keeps_a_rejected_version_whose_log_names_the_line(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks() as callbacks:
        version = upload(alice, b"import ludus\n\n\ndef act(view, decision)\n    return 0\n")
    assert callbacks == []  # nothing to validate: it never runs
    version.refresh_from_db()
    assert version.status == "rejected"
    assert "SyntaxError" in version.validation_log and "line 4" in version.validation_log
    assert "def act(view, decision)" in version.validation_log


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"data": b"x = 1\n", "filename": "bot.exe"}, "a .py file or a .zip"),
    ({"data": b"PK\x03\x04 broken", "filename": "bot.zip"}, "not a valid zip file"),
    ({"game": "chess"}, "unknown game 'chess'; known games: evolution"),
    ({"name": "my bot!"}, "must be letters, digits"),
    ({"name": "x" * 65}, "longer than 64 characters"),
])
def test_a_malformed_upload_raises_and_stores_nothing(alice: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(BadUpload, match=message):
        upload(alice, **kwargs)
    assert not Bot.objects.exists() and not BotVersion.objects.exists()


def test_an_oversized_upload_is_refused(alice: Any, settings: Any) -> None:
    settings.LUDUS_UPLOAD_MAX_BYTES = 1000
    with pytest.raises(BadUpload, match="over the upload limit of 1000 bytes"):
        upload(alice, b"#" * 1001)
    assert not BotVersion.objects.exists()


def test_a_bot_keeps_its_game(alice: Any) -> None:
    upload(alice)
    Bot.objects.filter(name="hungry").update(game="other")
    with pytest.raises(BadUpload, match="your bot 'hungry' plays 'other', not 'evolution'"):
        upload(alice)


def test_the_same_name_belongs_to_each_owner_separately(alice: Any, bob: Any) -> None:
    assert upload(alice).number == 1 and upload(bob).number == 1
    assert Bot.objects.filter(name="hungry").count() == 2


@needs_bwrap
@pytest.mark.sandbox
def test_version_two_leaves_version_one_active_and_playable(alice: Any, builtin_versions: dict[str, Any]) -> None:
    first = upload(alice)
    assert validate_version(first.pk) == "active"
    second = upload(alice, EXAMPLE.read_bytes() + b"# v2\n")
    assert second.number == 2 and second.bot_id == first.bot_id
    first.refresh_from_db()
    assert first.status == "active" and bytes(first.source) == EXAMPLE.read_bytes()

    from tournaments.scheduling import create_tournament, start_tournament
    from workers.runner import run_match

    tournament = create_tournament([first, builtin_versions["greedy"]], name="v1 still plays", game="evolution",
                                   players_per_table=2, games_per_set=1, seed=3)
    [match] = start_tournament(tournament, enqueue=False)
    assert run_match(match.pk) == "finished"
    seat = Seat.objects.get(match=match, bot_version=first)
    assert seat.faults == 0 and not seat.forfeited and seat.rank is not None


def test_version_numbers_follow_each_other_without_reading_every_version(alice: Any) -> None:
    for _ in range(3):
        upload(alice)
    with CaptureQueriesContext(connection) as queries:
        fourth = upload(alice)
    assert fourth.number == 4
    assert len(queries) < 15


# --- flagging -----------------------------------------------------------------------------------------------------


def finished_seats(version: BotVersion, opponent: BotVersion, results: list[tuple[int, bool]],
                   start: int = 0) -> None:
    """One finished ladder match per (faults, forfeited), oldest first."""
    ladder, _ = Ladder.objects.get_or_create(name="flags", defaults={"game": "evolution", "players_per_match": 2})
    for i, (faults, forfeited) in enumerate(results, start):
        match = Match.objects.create(ladder=ladder, game="evolution", num_players=2, seed=i, status="finished",
                                     rated=False)
        Match.objects.filter(pk=match.pk).update(finished_at=f"2026-01-01T00:{i:02d}:00Z")
        Seat.objects.create(match=match, number=0, bot_version=version, faults=faults, forfeited=forfeited, rank=2)
        Seat.objects.create(match=match, number=1, bot_version=opponent, rank=1)


def test_a_bot_that_forfeits_its_last_matches_is_flagged(alice: Any, builtin_versions: dict[str, Any],
                                                         settings: Any) -> None:
    settings.LUDUS_FLAG_FORFEITS = 3
    version = upload(alice)
    finished_seats(version, builtin_versions["random"], [(0, False), (3, True), (3, True), (3, True)])
    assert flag_faulty_bots() == 1
    bot = Bot.objects.get(pk=version.bot_id)
    assert bot.flagged_reason == "forfeited its last 3 matches (version 1)" and bot.flagged_at is not None
    assert not Bot.objects.get(pk=builtin_versions["random"].bot_id).flagged_reason


def test_a_bot_that_faults_in_most_recent_matches_is_flagged_then_cleared(
    alice: Any, builtin_versions: dict[str, Any], settings: Any
) -> None:
    settings.LUDUS_FLAG_WINDOW, settings.LUDUS_FLAG_FAULT_PERCENT = 4, 50
    version = upload(alice)
    finished_seats(version, builtin_versions["random"], [(1, False), (0, False), (2, False), (0, False)])
    assert flag_faulty_bots([version.bot_id]) == 1
    assert Bot.objects.get(pk=version.bot_id).flagged_reason == "faulted in 2 of its last 4 matches"
    finished_seats(version, builtin_versions["random"], [(0, False)] * 4, start=10)
    assert flag_faulty_bots() == 0
    bot = Bot.objects.get(pk=version.bot_id)
    assert bot.flagged_reason == "" and bot.flagged_at is None


def test_a_bot_with_too_few_matches_is_not_judged(alice: Any, builtin_versions: dict[str, Any]) -> None:
    version = upload(alice)
    finished_seats(version, builtin_versions["random"], [(2, False)])
    assert flag_faulty_bots() == 0
