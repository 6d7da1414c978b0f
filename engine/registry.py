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


def load_game(name: str, rules_version: str | None = None) -> Game:
    """The registered game called name (at an older rules version if given, for stored replays); raises
    InvalidOptions naming the known games or versions otherwise."""
    if name not in _GAMES:
        raise InvalidOptions(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    if name not in _loaded:
        game = importlib.import_module(_GAMES[name]).GAME
        assert isinstance(game, Game)
        _loaded[name] = game
    game = _loaded[name]
    return game if rules_version is None else game.at_rules_version(rules_version)


def list_games() -> list[dict[str, object]]:
    return [load_game(n).metadata() for n in game_names()]
