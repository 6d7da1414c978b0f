"""Fixtures of the replay tests that need the database: a finished match to branch (docs/branches.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.builtins import ensure_builtin
from tournaments.models import Ladder, Match
from tournaments.new_matches import create_match
from workers.runner import run_match


@pytest.fixture
def parent(db: None, alice: Any) -> Match:
    """A finished marine ladder match, greedy against greedy-2, played by the runner."""
    ladder = Ladder.objects.create(name="marine duel", game="marine", players_per_match=2, created_by=alice)
    match = create_match(ladder, [ensure_builtin("greedy"), ensure_builtin("greedy-2", "greedy")], 41)
    assert run_match(match.pk) == "finished"
    return Match.objects.get(pk=match.pk)
