"""The game registry: games by name, loaded lazily."""

from __future__ import annotations

import importlib

from engine.core import Game, InvalidOptions

# name -> module that defines GAME; a new game is one line here.
_GAMES: dict[str, str] = {
    "evolution": "engine.evolution",
    "marine": "engine.marine",
}
_loaded: dict[str, Game] = {}


def game_names() -> list[str]:
    return sorted(_GAMES)


def load_game(name: str) -> Game:
    """The registered game called name; raises InvalidOptions naming the known games otherwise."""
    if name not in _GAMES:
        raise InvalidOptions(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    if name not in _loaded:
        game = importlib.import_module(_GAMES[name]).GAME
        assert isinstance(game, Game)
        _loaded[name] = game
    return _loaded[name]


def list_games() -> list[dict[str, object]]:
    return [load_game(n).metadata() for n in game_names()]
