"""Scoring (ruling 23): bag food, plus Population and trait cards of surviving species; ties (ruling 32)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import Outcome

if TYPE_CHECKING:
    from engine.evolution.state import EvolutionState


def score_parts(st: EvolutionState, seat: int) -> dict[str, int]:
    """A seat's score by part. Fat and avian upkeep are never scored (rulings 20, 29)."""
    row = st.rows[seat]
    return {
        "food": st.bags[seat],
        "population": sum(sp.pop for sp in row),
        "traits": sum(len(sp.cards) + len(sp.hidden) for sp in row),
    }


def score_keys(st: EvolutionState) -> list[tuple[int, int, int]]:
    """(score, trait cards on surviving species, Population) per seat: ties go to traits, then Population."""
    keys = []
    for seat in range(st.n):
        parts = score_parts(st, seat)
        keys.append((sum(parts.values()), parts["traits"], parts["population"]))
    return keys


def outcome(st: EvolutionState) -> Outcome | None:
    if st.phase != "over":
        return None
    return Outcome.from_keys(score_keys(st))  # a tie left after both breaks is a shared rank (ruling 23)
