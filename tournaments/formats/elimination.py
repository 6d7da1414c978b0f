"""Single elimination (docs/architecture.md#tournaments-ladders-and-ratings): seeded tables, byes, the top seats of
each table advance. Pure: no Django.

- A round of m entrants (in seed order, best first) sits at ceil(m / players) tables, dealt like cards in a snake
  (1, 2, …, t, t, …, 2, 1, …), so tables differ by at most one seat and the best seeds meet last. A table of one
  is a **bye**: that entrant advances unplayed. The snake gives the byes to the best seeds.
- From a table of s seats, `min(advance_count(players), s - 1)` entrants advance: half the table size, rounded
  down, at least one (2 or 3 seats: 1; 4 or 5: 2; 6: 3). Everyone else is out.
- Once the entrants fit one table (m <= players), that table is the final and ranks them all.
- At a table the order is sets won, then points (tables/formats/sets.game_points summed over its games), then the
  better seed, so every table has a strict order.
- Advancers keep their original seed order into the next round.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class TableResult:
    """One entrant's record at one table: sets won (shared on a level set) and points over all its games."""

    sets_won: float = 0.0
    points: float = 0.0


def advance_count(players: int) -> int:
    return max(1, players // 2)


def is_final(entrants: int, players: int) -> bool:
    return entrants <= players


def deal_tables(seeded: Sequence[T], players: int) -> list[tuple[T, ...]]:
    """The round's tables in snake order; tables of one are byes. Raises ValueError with fewer than 2 entrants."""
    if players < 2:
        raise ValueError(f"an elimination table needs at least 2 players, got {players}")
    if len(seeded) < 2:
        raise ValueError(f"an elimination round needs at least 2 entrants, got {len(seeded)}")
    if len(set(seeded)) != len(seeded):
        raise ValueError("each entrant may enter only once")
    count = -(-len(seeded) // players)
    tables: list[list[T]] = [[] for _ in range(count)]
    for index, entrant in enumerate(seeded):
        lap, place = divmod(index, count)
        tables[place if lap % 2 == 0 else count - 1 - place].append(entrant)
    return [tuple(table) for table in tables]


def table_order(table: Sequence[T], results: Mapping[T, TableResult], seed_rank: Mapping[T, int]) -> list[T]:
    """The table's entrants, best first: sets won, then points, then the better seed."""
    def key(entrant: T) -> tuple[float, float, int]:
        result = results.get(entrant, TableResult())
        return (-result.sets_won, -result.points, seed_rank[entrant])

    return sorted(table, key=key)


def advancers(table: Sequence[T], results: Mapping[T, TableResult], seed_rank: Mapping[T, int],
              players: int) -> list[T]:
    """Who goes on from this table (a bye's one entrant always does)."""
    if len(table) == 1:
        return list(table)
    keep = min(advance_count(players), len(table) - 1)
    return table_order(table, results, seed_rank)[:keep]


def next_entrants(tables: Sequence[Sequence[T]], results: Mapping[T, TableResult], seed_rank: Mapping[T, int],
                  players: int) -> list[T]:
    """Every table's advancers, back in seed order."""
    going = [e for table in tables for e in advancers(table, results, seed_rank, players)]
    return sorted(going, key=lambda e: seed_rank[e])


def rounds_needed(entrants: int, players: int) -> int:
    """How many rounds a bracket of this size plays, the final included."""
    rounds = 1
    while not is_final(entrants, players):
        tables = -(-entrants // players)
        sizes = [entrants // tables + (1 if i < entrants % tables else 0) for i in range(tables)]
        entrants = sum(1 if s == 1 else min(advance_count(players), s - 1) for s in sizes)
        rounds += 1
    return rounds
