"""Shared helpers for the engine tests, exposed as session fixtures (hypothesis-friendly).

Engine tests never touch Django: they use only `engine` and the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from engine.core import State
from engine.registry import game_names, load_game
from engine.testing import Playthrough, play_random, replay


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test taking `game_name` and `players` runs for every registered game and player count;
    a test taking only `game_name` runs once per registered game."""
    names = metafunc.fixturenames
    if any("game_name" in str(mark.args[0]) for mark in metafunc.definition.iter_markers("parametrize")):
        return  # the test brings its own table
    if "game_name" in names and "players" in names:
        metafunc.parametrize(("game_name", "players"), player_cases(), ids=[f"{g}-{n}p" for g, n in player_cases()])
    elif "game_name" in names:
        metafunc.parametrize("game_name", game_names())


def player_cases() -> list[tuple[str, int]]:
    """(game, players) for every registered game and every player count it allows.

    A game that fails to import still yields one case, so the failure shows up in a test, not at collection.
    """
    cases = []
    for name in game_names():
        try:
            game = load_game(name)
        except Exception:  # noqa: BLE001 - surfaced by the test that loads it
            cases.append((name, 2))
            continue
        cases += [(name, n) for n in range(game.min_players, game.max_players + 1)]
    return cases


def as_json(value: Any) -> Any:
    """value as it comes back from a JSON file (tuples become lists); raises TypeError when not JSON."""
    return json.loads(json.dumps(value, allow_nan=False))


@pytest.fixture(scope="session")
def play() -> Callable[..., Playthrough]:
    return play_random


@pytest.fixture(scope="session")
def replay_choices() -> Callable[..., tuple[State, list[Any]]]:
    return replay
