"""Golden playthroughs pin every decision, view and event of one game per game and player count.

Regenerate them with `python tests/engine/golden_files.py` (only after a deliberate rules change, with a
rules_version bump).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_files import GOLDEN_DIR, check_playthrough, dumps_playthrough, expected_paths, record_playthrough

from engine.registry import load_game

MAX_BYTES = 2 * 1024 * 1024


def golden_cases() -> list[tuple[str, int, Path]]:
    return list(expected_paths())


def test_every_registered_game_has_a_golden_file_for_every_player_count() -> None:
    missing = [path.name for _name, _players, path in golden_cases() if not path.exists()]
    assert not missing, f"missing golden playthroughs {missing}: run `python tests/engine/golden_files.py`"


def test_no_golden_file_is_left_for_a_game_or_player_count_that_does_not_exist() -> None:
    expected = {path.name for _name, _players, path in golden_cases()}
    stray = sorted(p.name for p in GOLDEN_DIR.glob("*.json") if p.name not in expected)
    assert not stray, f"golden files for no registered game/player count: {stray}"


@pytest.mark.parametrize(("game_name", "players", "path"), golden_cases(), ids=[p.name for *_, p in golden_cases()])
def test_the_golden_playthrough_replays_exactly(game_name: str, players: int, path: Path) -> None:
    assert path.exists(), f"{path.name} is missing: run `python tests/engine/golden_files.py`"
    assert path.stat().st_size < MAX_BYTES, f"{path.name} is {path.stat().st_size} bytes"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["game"], data["players"]) == (game_name, players)
    problems = check_playthrough(data)
    assert not problems, "\n".join(problems[:3])


def test_a_changed_step_is_caught(game_name: str) -> None:
    game = load_game(game_name)
    data = record_playthrough(game, game.min_players, seed=3)
    assert check_playthrough(data) == []
    step = data["steps"][len(data["steps"]) // 2]
    step["events"] = step["events"] + [{"forged": True}]
    problems = check_playthrough(data)
    assert problems and "events differs" in problems[0]


def test_recording_is_deterministic_and_the_file_format_is_json(game_name: str) -> None:
    game = load_game(game_name)
    first = dumps_playthrough(record_playthrough(game, game.min_players, seed=4))
    assert first == dumps_playthrough(record_playthrough(game, game.min_players, seed=4))
    assert json.loads(first)["players"] == game.min_players
