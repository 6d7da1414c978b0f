"""manage.py replay verify|show|export on stored replays and on exported files."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from replays.format import decode_replay, encode_actions
from replays.models import Replay
from replays.storage import place
from tournaments.models import Match
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def finished(tournament: Any) -> list[Match]:
    matches = start_tournament(tournament, enqueue=False)[:3]
    for match in matches:
        assert run_match(match.pk) == "finished"
    return matches


def replay_command(*args: str) -> str:
    out = io.StringIO()
    call_command("replay", *args, stdout=out)
    return out.getvalue()


def test_it_verifies_every_stored_replay(finished: list[Match]) -> None:
    out = replay_command("verify", "--all")
    assert "3 verified, 0 mismatched" in out


def test_it_fails_with_exit_status_1_on_a_tampered_replay(finished: list[Match]) -> None:
    replay = Replay.objects.get(match=finished[1])
    actions = replay.action_log()
    actions[-1]["seat"] = (actions[-1]["seat"] + 1) % 2
    tampered = place(encode_actions(actions))  # a well-formed file, with its own digest: only re-simulation tells
    Replay.objects.filter(pk=replay.pk).update(location=tampered.key, digest=tampered.digest)
    with pytest.raises(CommandError) as raised:
        replay_command("verify", "--all")
    assert raised.value.returncode == 1
    assert "1 replay(s) do not reproduce" in str(raised.value)


def test_it_shows_each_decision_with_options_choice_and_time(finished: list[Match]) -> None:
    out = replay_command("show", str(finished[0].pk))
    assert "tinynim (rules 1)" in out
    assert "step 0: the start" in out and "step 1: seat 0 decides take" in out and "[0] 1" in out
    assert "-> seat 0 chose" in out and " ms)" in out
    assert "game over" in out and "outcome:" in out


def test_it_exports_one_file_that_verifies_offline(finished: list[Match], tmp_path: Path) -> None:
    target = tmp_path / "match.ludus-replay.json.gz"
    replay_command("export", str(finished[0].pk), "-o", str(target))
    document = decode_replay(target.read_bytes())
    assert document == Replay.objects.get(match=finished[0]).document()
    assert "ok (ranks" in replay_command("verify", str(target))


def test_it_says_when_a_match_has_no_replay(tournament: Any) -> None:
    match = start_tournament(tournament, enqueue=False)[0]
    with pytest.raises(CommandError, match=f"match {match.pk} has no replay"):
        replay_command("show", str(match.pk))


def test_it_prints_the_viewer_url_of_the_match(finished: list[Match], settings: Any) -> None:
    settings.LUDUS_SITE_URL = "https://ludus.example.org"
    out = replay_command("show", str(finished[0].pk), "--seat", "1")
    assert f"viewer: https://ludus.example.org/replays/{finished[0].pk}/#view=1" in out


@pytest.mark.parametrize(("args", "error"), [
    (["--seat", "9"], "--seat 9: this game has seats 0 to 1"),
    (["--seat", "-1"], "--seat -1: this game has seats 0 to 1"),
    (["--start", "-3"], "--start -3: this game has steps 0 to "),
    (["--start", "99999"], "--start 99999: this game has steps 0 to "),
    (["--start", "2", "--stop", "2"], "--stop 2 must be greater than --start 2"),
])
def test_it_refuses_a_seat_or_step_the_game_does_not_have(finished: list[Match], args: list[str],
                                                            error: str) -> None:
    with pytest.raises(CommandError, match=re.escape(error)):
        replay_command("show", str(finished[0].pk), *args)


def test_it_says_in_one_line_when_the_export_file_cannot_be_written(finished: list[Match]) -> None:
    with pytest.raises(CommandError) as raised:
        replay_command("export", str(finished[0].pk), "-o", "/nonexistent/dir/x.gz")
    assert str(raised.value) == "cannot write /nonexistent/dir/x.gz: No such file or directory"


def test_a_bad_seat_is_one_line_and_a_non_zero_exit_from_the_shell(finished: list[Match], tmp_path: Path) -> None:
    target = tmp_path / "match.gz"
    replay_command("export", str(finished[0].pk), "-o", str(target))
    done = subprocess.run([sys.executable, "manage.py", "replay", "show", str(target), "--seat", "9"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["CommandError: --seat 9: this game has seats 0 to 1"]
