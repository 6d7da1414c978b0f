"""Ludus rules engines. Standard library only: no Django, no Celery, no I/O."""

from engine.core import (
    Decision,
    Game,
    IllegalAction,
    InvalidOptions,
    InvalidState,
    OptionSpec,
    Outcome,
    State,
)
from engine.registry import game_names, list_games, load_game

__all__ = [
    "Decision",
    "Game",
    "IllegalAction",
    "InvalidOptions",
    "InvalidState",
    "OptionSpec",
    "Outcome",
    "State",
    "game_names",
    "list_games",
    "load_game",
]
