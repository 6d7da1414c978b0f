"""Every bot kind, an uploaded one too: a branch that forces the move that was played replays its parent exactly
(moves, outcome, digest), with an uploaded bot that keeps no memory in the real sandbox (docs/branches.md#what-a-
branch-is). An uploaded bot that does keep a memory starts at the branch point without it, and the pages say so
(tests/replays/test_branch_command.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from replays.branches import BranchRequest, create_branches
from replays.management.commands.branch import OPERATOR
from replays.models import Replay
from tournaments.bot_lifecycle import upload_bot_version
from tournaments.builtins import ensure_builtin
from tournaments.models import BotVersion, Ladder, Match
from tournaments.new_matches import create_match
from workers.runner import run_match

pytestmark = [
    pytest.mark.django_db, pytest.mark.sandbox, pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "evolution_bot.py"


def document(match: Match) -> dict[str, Any]:
    return Replay.objects.get(match=match).document()


def test_forcing_the_played_move_replays_a_parent_with_an_uploaded_bot(alice: Any) -> None:
    version = upload_bot_version(alice, "feeder", "evolution", EXAMPLE.name, EXAMPLE.read_bytes())
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
    ladder = Ladder.objects.create(name="evolution short", game="evolution", players_per_match=2, created_by=alice,
                                   options={"deck": "short"})
    parent = create_match(ladder, [BotVersion.objects.get(pk=version.pk), ensure_builtin("greedy")], 23)
    assert run_match(parent.pk) == "finished", Match.objects.get(pk=parent.pk).error
    parent.refresh_from_db()
    old = document(parent)
    steps = [index + 1 for index, record in enumerate(old["actions"]) if index > 10][::37][:3]
    for step in steps:
        played = old["actions"][step - 1]["choice"]
        [child] = create_branches(parent, OPERATOR, BranchRequest(step=step, force=played))
        assert run_match(child.pk) == "finished", Match.objects.get(pk=child.pk).error
        new = document(child)
        moves = [[(r["seat"], r["choice"]) for r in doc["actions"]] for doc in (old, new)]
        assert moves[0] == moves[1], step
        assert new["footer"]["outcome"] == old["footer"]["outcome"]
        assert new["footer"]["digest"] == old["footer"]["digest"]
