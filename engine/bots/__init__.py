"""Built-in bots. Each answers `act(view, decision) -> index`, exactly like an uploaded bot."""

from __future__ import annotations

from typing import Any, Protocol

from engine.core import Decision, InvalidOptions


class Bot(Protocol):
    needs_view: bool

    def act(self, view: dict[str, Any] | None, decision: Decision) -> int: ...


def bot_names() -> list[str]:
    return ["greedy", "random"]


def make_bot(name: str, game: str, seed: int) -> Bot:
    """A built-in bot by name for a game; raises InvalidOptions for an unknown name."""
    if name == "random":
        from engine.bots.random_bot import RandomBot

        return RandomBot(seed)
    if name == "greedy":
        from engine.bots.greedy import GreedyBot

        return GreedyBot(game, seed)
    raise InvalidOptions(f"unknown built-in bot {name!r}; known bots: {', '.join(bot_names())}")
