"""Round robin (docs/architecture.md#tournaments-ladders-and-ratings): every table of `players` entrants plays one set.

A set is `games_per_set` games with the same seed and the seats rotated one place per game, so the first-player
advantage cancels. Tables are packed into rounds in which no entrant plays twice. Pure: no Django.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class Pairing(Generic[T]):
    """One game: its round, its table (set) and game number within the set, the entrants in seat order, the seed."""

    round: int
    table: int
    game: int
    seats: tuple[T, ...]
    seed: int


def derive_seed(seed: int, *parts: int) -> int:
    """A stable 31-bit seed from a tournament seed and indices (the same on every machine and Python)."""
    text = ":".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big") >> 1


def derive_match_seed(seed: int, *parts: int) -> int:
    """A stable 62-bit match seed, as wide as every other seed (tournaments.visibility.new_seed)."""
    text = ":".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 2


def rotate(seats: Sequence[T], shift: int) -> tuple[T, ...]:
    shift %= len(seats)
    return tuple(seats[shift:]) + tuple(seats[:shift])


def tables(entrants: Sequence[T], players: int) -> list[tuple[T, ...]]:
    """Every combination of `players` entrants, in a stable order; raises ValueError when there are too few."""
    if players < 1:
        raise ValueError(f"a table needs at least one player, got {players}")
    if len(set(entrants)) != len(entrants):
        raise ValueError("each entrant may enter only once")
    if len(entrants) < players:
        raise ValueError(f"a table of {players} needs at least {players} entrants, got {len(entrants)}")
    return list(itertools.combinations(entrants, players))


def pack_rounds(combos: Sequence[tuple[T, ...]]) -> list[int]:
    """A round number (from 1) for each table: the first round in which none of its entrants plays yet."""
    busy: list[set[T]] = []
    rounds = []
    for combo in combos:
        for number, taken in enumerate(busy):
            if taken.isdisjoint(combo):
                taken.update(combo)
                rounds.append(number + 1)
                break
        else:
            busy.append(set(combo))
            rounds.append(len(busy))
    return rounds


def schedule(entrants: Sequence[T], players: int, games_per_set: int, seed: int) -> list[Pairing[T]]:
    """All games of the tournament, ordered by round, then table, then game."""
    if games_per_set < 1:
        raise ValueError(f"a set needs at least one game, got {games_per_set}")
    combos = tables(entrants, players)
    rounds = pack_rounds(combos)
    pairings = [
        # A per-table starting offset, so with fewer games than seats no entrant always sits first.
        Pairing(round=rounds[index], table=index, game=game, seats=rotate(combo, game + derive_seed(seed, index, 1)),
                seed=derive_match_seed(seed, index))
        for index, combo in enumerate(combos)
        for game in range(games_per_set)
    ]
    return sorted(pairings, key=lambda p: (p.round, p.table, p.game))
