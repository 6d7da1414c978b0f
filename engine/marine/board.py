"""The earth: axial hex geometry, corners, thriving, dominance and the seed's Evolution scoring of one tile.

Hexes are pointy-top, in axial coordinates (q, r). A corner is shared by 3 hexes and is named canonically as the
top ("N") or bottom ("S") corner of one hex: (q, r, "N") touches (q, r), (q, r-1) and (q+1, r-1);
(q, r, "S") touches (q, r), (q-1, r+1) and (q, r+1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.marine.data import MATCHES, SCORE_ROWS

Hex = tuple[int, int]
Corner = tuple[int, int, str]

DIRECTIONS: tuple[Hex, ...] = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))  # clockwise from north-east


_NEIGHBOURS: dict[Hex, tuple[Hex, ...]] = {}


def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The 6 hexes next to h, clockwise from the north-east (memoised: the earth stays small)."""
    found = _NEIGHBOURS.get(h)
    if found is None:
        q, r = h
        found = _NEIGHBOURS[h] = tuple((q + dq, r + dr) for dq, dr in DIRECTIONS)
    return found


def hex_corners(h: Hex) -> list[Corner]:
    """The 6 corners of a hex, clockwise from the top one."""
    q, r = h
    return [(q, r, "N"), (q + 1, r - 1, "S"), (q, r + 1, "N"), (q, r, "S"), (q - 1, r + 1, "N"), (q, r - 1, "S")]


def corner_hexes(c: Corner) -> list[Hex]:
    """The 3 hexes that meet at a corner."""
    q, r, side = c
    if side == "N":
        return [(q, r), (q, r - 1), (q + 1, r - 1)]
    return [(q, r), (q - 1, r + 1), (q, r + 1)]


def distance(h: Hex) -> int:
    q, r = h
    return max(abs(q), abs(r), abs(q + r))


def ranking(species: Sequence[int], animals: Sequence[int]) -> list[int]:
    """Seats with species on a tile, most species first; ties go up the food chain (lower animal index)."""
    present = [s for s in range(len(species)) if species[s] > 0]
    present.sort(key=lambda s: (-species[s], animals[s]))
    return present


def score_tile(terrain: int, species: Sequence[int], animals: Sequence[int]) -> list[tuple[int, int]]:
    """The seed's Evolution scoring of one tile: [(seat, VP)] for 1st, 2nd, 3rd and 4th most species.

    Each place goes to a different animal, so an animal alone takes only the first value (clause 2); the table's
    empty cells are the Vent's missing second place (clause 2), the third place only on Land, Kelp, Reef and
    Seamount (clause 3) and the fourth only on Land (clause 4). No species, no score.
    """
    row = SCORE_ROWS[terrain]
    out = []
    for place, seat in enumerate(ranking(species, animals)[:4]):
        value = row[place]
        if value is not None:
            out.append((seat, value))
    return out


def is_thriving(animal: int, types: Iterable[int]) -> bool:
    """An animal thrives on a tile when it matches at least one element type touching it (project-defined)."""
    matches = MATCHES[animal]
    return any(e in matches for e in types)
