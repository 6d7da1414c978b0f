"""Games join the registry through register_game() (a plug-in or a test's toy game), never by editing its dicts."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from engine.core import Game, InvalidOptions, State
from engine.registry import game_names, load_game, register_game, registered, unregister_game


class Blank(Game):
    name = "blank_for_registry_test"
    title = "Blank"
    rules_version = "1"
    min_players = 2
    max_players = 2
    options_schema: Mapping[str, Any] = {}

    def new_state(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        raise NotImplementedError("a registry test never plays it")

    def state_from_dict(self, data: Mapping[str, Any]) -> State:
        raise NotImplementedError("a registry test never loads it")


@pytest.fixture
def blank() -> Iterator[Game]:
    with registered(Blank()) as game:
        yield game


def test_a_registered_game_loads_by_name_and_is_listed(blank: Game) -> None:
    assert load_game(blank.name) is blank and blank.name in game_names()
    register_game(blank)  # the same object again: harmless
    assert load_game(blank.name, "1") is blank


def test_an_unregistered_game_is_unknown_again() -> None:
    register_game(Blank())
    unregister_game(Blank.name)
    assert Blank.name not in game_names()
    with pytest.raises(InvalidOptions, match="unknown game 'blank_for_registry_test'; known games: evolution"):
        load_game(Blank.name)


def test_another_game_under_a_taken_name_is_refused(blank: Game) -> None:
    with pytest.raises(InvalidOptions, match="a game called 'blank_for_registry_test' is already registered"):
        register_game(Blank())
    impostor = type("Impostor", (Blank,), {"name": "marine"})()
    with pytest.raises(InvalidOptions, match="a game called 'marine' is already registered"):
        register_game(impostor)


def test_only_games_register_and_built_in_games_stay() -> None:
    with pytest.raises(InvalidOptions, match="register_game needs an engine.core.Game, got str"):
        register_game("marine")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptions, match="'evolution' is a built-in game and cannot be unregistered"):
        unregister_game("evolution")
