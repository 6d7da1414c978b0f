"""manage.py replay verify|show|export on stored replays and on exported files."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from replays.format import decode_replay, encode_actions
from replays.models import Replay
from tournaments.models import Match
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = pytest.mark.django_db


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
    Replay.objects.filter(pk=replay.pk).update(actions=encode_actions(actions))
    with pytest.raises(CommandError) as raised:
        replay_command("verify", "--all")
    assert raised.value.returncode == 1
    assert "1 replay(s) do not reproduce" in str(raised.value)


def test_it_shows_each_decision_with_options_choice_and_time(finished: list[Match]) -> None:
    out = replay_command("show", str(finished[0].pk))
    assert "tinynim (rules 1)" in out
    assert "step 0: seat 0 decides take" in out and "[0] 1" in out
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
