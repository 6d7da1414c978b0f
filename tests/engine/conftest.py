"""Shared helpers for the engine tests, exposed as session fixtures (hypothesis-friendly).

Engine tests never touch Django: they use only `engine` and the standard library.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.core import Game, State
from engine.registry import game_names, load_game

STEP_CAP = 50_000  # a game longer than this fails loudly: it would never end


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


@dataclass
class Playthrough:
    """A finished random game: its final state, the choice indices and, per step, what it looked like."""

    game: Game
    players: int
    seed: int
    state: State
    choices: list[int] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)


def play_random(game: Game, players: int, seed: int, choice_seed: int | None = None,
                on_step: Callable[[State, int], None] | None = None,
                options: dict[str, Any] | None = None) -> Playthrough:
    """Play a game to the end with uniformly random choices; on_step(state, step) runs before each choice.

    Fails loudly (AssertionError) when the game passes STEP_CAP decisions.
    """
    rng = random.Random(seed if choice_seed is None else choice_seed)
    state = game.new_state(players, seed, options)
    run = Playthrough(game, players, seed, state)
    while (decision := state.decision()) is not None:
        assert len(run.choices) < STEP_CAP, f"{game.name} {players}p seed {seed}: no end after {STEP_CAP} steps"
        if on_step is not None:
            on_step(state, len(run.choices))
        choice = rng.randrange(len(decision.options))
        run.events.append(state.choose(choice))
        run.choices.append(choice)
    return run


def replay(game: Game, players: int, seed: int, choices: list[int],
           options: dict[str, Any] | None = None) -> tuple[State, list[Any]]:
    """Re-play choice indices from a fresh state; return the state and the events of each step."""
    state = game.new_state(players, seed, options)
    return state, [state.choose(choice) for choice in choices]


def as_json(value: Any) -> Any:
    """value as it comes back from a JSON file (tuples become lists); raises TypeError when not JSON."""
    return json.loads(json.dumps(value, allow_nan=False))


@pytest.fixture(scope="session")
def play() -> Callable[..., Playthrough]:
    return play_random


@pytest.fixture(scope="session")
def replay_choices() -> Callable[..., tuple[State, list[Any]]]:
    return replay
