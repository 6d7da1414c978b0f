"""Sets (docs/architecture.md#tournaments-ladders-and-ratings): a table plays `games` games with one seed, the seats
rotated one place per game.

With as many games as seats every entrant sits in every seat once, so the first-player advantage cancels. Pure.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from tournaments.formats.round_robin import derive_match_seed, rotate

T = TypeVar("T", bound=Hashable)


def set_games(seats: Sequence[T], games: int, seed: int) -> list[tuple[tuple[T, ...], int]]:
    """(seats in order, seed) for each game of one set; raises ValueError for fewer than one game."""
    if games < 1:
        raise ValueError(f"a set needs at least one game, got {games}")
    return [(rotate(seats, game), seed) for game in range(games)]


def table_seed(seed: int, round_number: int, table: int, set_number: int = 0) -> int:
    """The seed of one set: stable across machines, different for every round, table and set."""
    return derive_match_seed(seed, round_number, table, set_number, 7)


def game_points(rank: int, ranks: Sequence[int]) -> float:
    """Points for one game: one per opponent finished ahead of, a half per opponent tied with."""
    return sum(1.0 if rank < other else 0.5 if rank == other else 0.0 for other in ranks) - 0.5
