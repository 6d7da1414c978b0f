"""perturb_hidden: for the conformance suite, a copy of a state dict that differs only in what `seat` cannot see."""

from __future__ import annotations

import random
from typing import Any

from engine.marine.data import ASTEROID, ASTEROID_DEPTH


def perturb_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Reshuffle the draw pile (the Asteroid stays within the bottom 5, as every seat knows), the tile stacks below
    their top tiles (among the stacks), and change the seed. Nothing here depends on the seat: the hidden
    information of Marine is hidden from every seat alike."""
    deck = data["deck"]
    others = [c for c in deck if c != ASTEROID]
    rng.shuffle(others)
    if ASTEROID in deck:
        depth = min(ASTEROID_DEPTH, len(deck))
        others.insert(len(others) - rng.randrange(depth), ASTEROID)
    data["deck"] = others
    stacks = data["tile_stacks"]
    below = [t for s in stacks for t in s[1:]]
    rng.shuffle(below)
    k = 0
    for s in stacks:
        size = len(s) - 1
        if size > 0:
            s[1:] = below[k:k + size]
            k += size
    data["seed"] = rng.randrange(1 << 30)
    return data
