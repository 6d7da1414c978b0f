"""The game registry: games by name. The built-in games load lazily; others join with register_game()."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.core import JSON, Game, InvalidOptions

# The built-in games: name -> the module that defines GAME, imported on first use. A new built-in game is one line
# here; a game defined elsewhere (a plug-in, a test's toy game) calls register_game() instead.
_BUILTIN: dict[str, str] = {
    "evolution": "engine.evolution",
    "marine": "engine.marine",
}
_loaded: dict[str, Game] = {}


def register_game(game: Game) -> None:
    """Make game loadable by its name. Registering the same object again is harmless; another game under a name
    already taken raises InvalidOptions naming it."""
    if not isinstance(game, Game):
        raise InvalidOptions(f"register_game needs an engine.core.Game, got {type(game).__name__}")
    taken = _loaded.get(game.name)
    if (taken is not None and taken is not game) or (taken is None and game.name in _BUILTIN):
        raise InvalidOptions(f"a game called {game.name!r} is already registered")
    _loaded[game.name] = game


def unregister_game(name: str) -> None:
    """Forget a game added by register_game (for tests); the built-in games cannot be removed."""
    if name in _BUILTIN:
        raise InvalidOptions(f"{name!r} is a built-in game and cannot be unregistered")
    _loaded.pop(name, None)


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """register_game for the duration of a with block (a test's toy game)."""
    register_game(game)
    try:
        yield game
    finally:
        unregister_game(game.name)


def default_game() -> str:
    """The game played when none is named (manage.py demo): the first built-in game."""
    return next(iter(_BUILTIN))


def game_names() -> list[str]:
    return sorted(set(_BUILTIN) | set(_loaded))


def load_game(name: str, rules_version: str | None = None) -> Game:
    """The registered game called name (at an older rules version if given, for stored replays); raises
    InvalidOptions naming the known games or versions otherwise."""
    game = _loaded.get(name)
    if game is None:
        if name not in _BUILTIN:
            raise InvalidOptions(f"unknown game {name!r}; known games: {', '.join(game_names())}")
        game = importlib.import_module(_BUILTIN[name]).GAME
        assert isinstance(game, Game)
        _loaded[name] = game
    return game if rules_version is None else game.at_rules_version(rules_version)


def list_games() -> list[dict[str, object]]:
    return [load_game(n).metadata() for n in game_names()]


def viewer_of(name: str) -> dict[str, JSON]:
    """What the replay viewer needs of a game beside its views: the path of the script that draws its board (None:
    the generic board) and its score's unit, one and many. Raises InvalidOptions for an unknown game."""
    game = load_game(name)
    script = None
    if game.viewer_script is not None:
        script = str(Path(inspect.getfile(type(game))).with_name(game.viewer_script))
    return {"script": script, "score_units": list(game.score_units)}
