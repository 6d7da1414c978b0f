"""Swiss (docs/architecture.md#tournaments-ladders-and-ratings): each round groups entrants of similar standing at
tables of `players`. Pure: no Django.

- Order: points, best first; equal points keep the order given (the caller passes its tie-break order, e.g. by
  rating), so the pairing is deterministic.
- Byes: when the entrants do not fill whole tables, the `n % players` lowest-placed entrants that have had the
  fewest byes sit out. A bye is worth a won table (the service credits it; tournaments/standings.py).
- Repeats: tables are filled from the top of the order, each seat taking the best-placed entrant who has met the
  table's members least often. A bounded search finds a round with no repeats when one exists within its budget,
  otherwise the round with the fewest.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)
SEARCH_BUDGET = 20_000  # tables tried before settling for the best round found


@dataclass(frozen=True)
class SwissRound(Generic[T]):
    tables: list[tuple[T, ...]]
    byes: list[T] = field(default_factory=list)


def default_rounds(entrants: int) -> int:
    """ceil(log2(entrants)) rounds, at least one: enough to separate a single winner in two-player tables."""
    return max(1, math.ceil(math.log2(max(entrants, 2))))


def met_counts(tables: Sequence[Sequence[T]]) -> dict[frozenset[T], int]:
    """How often each pair of entrants has shared a table, from earlier rounds' tables."""
    counts: dict[frozenset[T], int] = {}
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1:]:
                key = frozenset((a, b))
                counts[key] = counts.get(key, 0) + 1
    return counts


def pair_round(standings: Sequence[tuple[T, float]], players: int, met: Mapping[frozenset[T], int],
               byes_had: Mapping[T, int] | None = None) -> SwissRound[T]:
    """The next round's tables and byes; raises ValueError when fewer entrants than a table remain."""
    if players < 2:
        raise ValueError(f"a Swiss table needs at least 2 players, got {players}")
    if len({e for e, _ in standings}) != len(standings):
        raise ValueError("each entrant may appear only once in the standings")
    if len(standings) < players:
        raise ValueError(f"a table of {players} needs at least {players} entrants, got {len(standings)}")
    order = [e for _, e in sorted(((-points, i), e) for i, (e, points) in enumerate(standings))]
    byes = pick_byes(order, len(order) % players, byes_had or {})
    playing = [e for e in order if e not in byes]
    return SwissRound(tables=group(playing, players, met), byes=byes)


def pick_byes(order: Sequence[T], count: int, byes_had: Mapping[T, int]) -> list[T]:
    """The lowest-placed entrants among those with the fewest byes so far."""
    from_bottom = sorted(range(len(order)), key=lambda i: (byes_had.get(order[i], 0), -i))
    return [order[i] for i in sorted(from_bottom[:count])]


def group(order: Sequence[T], players: int, met: Mapping[frozenset[T], int]) -> list[tuple[T, ...]]:
    search = _Search(players, met)
    search.run(list(order), [], 0)
    assert search.best is not None
    return search.best


class _Search(Generic[T]):
    """Depth-first over tables in standing order; stops at the first round without repeats."""

    def __init__(self, players: int, met: Mapping[frozenset[T], int]) -> None:
        self.players, self.met = players, met
        self.best: list[tuple[T, ...]] | None = None
        self.best_cost = math.inf
        self.budget = SEARCH_BUDGET

    def repeats(self, table: Sequence[T], candidate: T) -> int:
        return sum(self.met.get(frozenset((member, candidate)), 0) for member in table)

    def run(self, remaining: list[T], tables: list[tuple[T, ...]], cost: int) -> bool:
        """True once a round without repeats is found (the search stops)."""
        if cost >= self.best_cost or self.budget <= 0:
            return False
        if not remaining:
            self.best, self.best_cost = list(tables), cost
            return cost == 0
        self.budget -= 1
        return self.fill(remaining[1:], [remaining[0]], tables, cost)

    def fill(self, remaining: list[T], table: list[T], tables: list[tuple[T, ...]], cost: int) -> bool:
        if len(table) == self.players:
            return self.run(remaining, [*tables, tuple(table)], cost)
        # Best-placed first among the least-met: the greedy choice is the first branch tried.
        ranked = sorted(range(len(remaining)), key=lambda i: (self.repeats(table, remaining[i]), i))
        for i in ranked:
            extra = self.repeats(table, remaining[i])
            if self.fill(remaining[:i] + remaining[i + 1:], [*table, remaining[i]], tables, cost + extra):
                return True
            if self.budget <= 0:
                break
        return False
