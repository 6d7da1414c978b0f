"""Continuous ladder matchmaking (docs/architecture.md#tournaments-ladders-and-ratings): tables of close ratings, with
exploration. Pure: no Django.

Each table has an anchor and the anchor's nearest rivals by mu:
- with probability `explore`, the anchor is a **new** bot (fewer than `new_games` games), if there is one;
- then, with probability `explore`, an **idle** bot (the quarter of the pool that played longest ago);
- otherwise any bot not yet at a table of this batch, uniformly.
The other seats are drawn from the anchor's `players - 1 + window` nearest rivals by mu (those not yet at a table
of this batch first), and the seat order is shuffled. Everything random comes from one `random.Random(seed)`:
the same input and seed give the same tables.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)
MAX_NOTE = 2000  # characters of a ladder's matchmaking note


@dataclass(frozen=True)
class Candidate(Generic[T]):
    """A bot in the ladder's pool. last_played: a sequence number of its latest match (0: never), larger = later."""

    id: T
    mu: float
    sigma: float = 25.0 / 3
    games: int = 0
    last_played: int = 0


@dataclass(frozen=True)
class Matchmaking:
    explore: float = 0.25
    new_games: int = 5
    window: int = 2

    @classmethod
    def from_settings(cls, settings: dict[str, object]) -> Matchmaking:
        """From a ladder's `matchmaking` JSON; raises ValueError naming an unknown key or a bad value."""
        note = settings.get("note", "")  # a free-text note for people, stored as text: no NUL (jsonb refuses it)
        if not isinstance(note, str) or "\x00" in note or len(note) > MAX_NOTE:
            raise ValueError(f"the matchmaking note is text of at most {MAX_NOTE} characters, without NUL")
        settings = {k: v for k, v in settings.items() if k != "note"}
        unknown = set(settings) - {"explore", "new_games", "window"}
        if unknown:
            raise ValueError(f"unknown matchmaking setting(s) {', '.join(sorted(unknown))}; "
                             "known: explore, new_games, window (and note)")
        made = cls(**{k: type(getattr(cls, k))(v) for k, v in settings.items()})
        if not 0.0 <= made.explore <= 1.0 or made.new_games < 0 or made.window < 0:
            raise ValueError(f"matchmaking needs 0 <= explore <= 1, new_games >= 0, window >= 0; got {settings}")
        return made


def pick_tables(pool: Sequence[Candidate[T]], players: int, count: int, seed: int,
                rules: Matchmaking = Matchmaking()) -> list[tuple[T, ...]]:
    """`count` tables of `players` bots; raises ValueError when the pool cannot fill one table."""
    if players < 1:
        raise ValueError(f"a table needs at least one player, got {players}")
    if len({c.id for c in pool}) != len(pool):
        raise ValueError("each bot may be in the pool only once")
    if len(pool) < players:
        raise ValueError(f"a table of {players} needs at least {players} bots, got {len(pool)}")
    rng = random.Random(seed)
    ordered = sorted(pool, key=lambda c: repr(c.id))  # input order must not matter
    busy: set[T] = set()
    tables = []
    for _ in range(count):
        free = [c for c in ordered if c.id not in busy]
        anchor = choose_anchor(free or ordered, ordered, rng, rules)
        table = [anchor, *rivals(anchor, ordered, players - 1, rng, rules.window, busy)]
        rng.shuffle(table)
        busy.update(c.id for c in table)
        tables.append(tuple(c.id for c in table))
    return tables


def choose_anchor(free: Sequence[Candidate[T]], pool: Sequence[Candidate[T]], rng: random.Random,
                  rules: Matchmaking) -> Candidate[T]:
    new = [c for c in free if c.games < rules.new_games]
    if new and rng.random() < rules.explore:
        return rng.choice(new)
    if rng.random() < rules.explore:
        by_idle = sorted(free, key=lambda c: (c.last_played, repr(c.id)))
        return rng.choice(by_idle[:max(1, len(pool) // 4)])
    return rng.choice(list(free))


def rivals(anchor: Candidate[T], pool: Sequence[Candidate[T]], seats: int, rng: random.Random, window: int,
           busy: set[T]) -> list[Candidate[T]]:
    """`seats` bots among the anchor's `seats + window` nearest by mu, preferring those not yet at a table."""
    others = [c for c in pool if c.id != anchor.id]
    nearest = sorted(others, key=lambda c: (abs(c.mu - anchor.mu), rng.random()))[:seats + window]
    free = [c for c in nearest if c.id not in busy]
    if len(free) >= seats:
        return rng.sample(free, seats)
    return free + rng.sample([c for c in nearest if c.id in busy], seats - len(free))
