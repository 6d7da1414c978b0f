"""Built-in bots. Each answers `act(view, decision) -> index`, exactly like an uploaded bot."""

from __future__ import annotations

from typing import Any, Protocol

from engine.bots.epsilon import EpsilonGreedyBot, epsilon_of
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot
from engine.core import Decision, InvalidOptions


class Bot(Protocol):
    needs_view: bool

    def needs_view_for(self, decision: Decision) -> bool:
        """False when act answers `decision` the same given None for the view: a caller may skip building it."""

    def act(self, view: dict[str, Any] | None, decision: Decision) -> int: ...

    def played(self, decision: Decision, choice: int) -> None:
        """Called after act when another option than the bot's answer may have been played (a branch's past, or a
        forced step): the bot's memory must follow what was played."""


def bot_names() -> list[str]:
    return ["greedy", "random"]


def is_bot_name(name: str) -> bool:
    """A listed bot, or a weakened greedy `greedy_epsNN` (NN % random moves; engine/bots/epsilon.py)."""
    return name in bot_names() or epsilon_of(name) is not None


def make_bot(name: str, game: str, seed: int) -> Bot:
    """A built-in bot by name for a game; raises InvalidOptions for an unknown name."""
    epsilon = epsilon_of(name)
    if epsilon is not None:
        return EpsilonGreedyBot(game, seed, epsilon)
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(game, seed)
    raise InvalidOptions(f"unknown built-in bot {name!r}; known bots: {', '.join(bot_names())}")
