"""What no seat may see. resample: a state with the unseen cards and tiles dealt again (State.resample);
perturb_hidden: for the conformance suite, a copy of a state dict that differs only in what `seat` cannot see."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from engine.core import check_seed
from engine.marine.data import ASTEROID, ASTEROID_DEPTH, ASTEROID_ID

if TYPE_CHECKING:
    from engine.marine.state import MarineState


def resample(st: MarineState, seed: int) -> MarineState:
    """Deal again the draw pile (the Asteroid among its bottom five, as every seat knows) and the Wanderlust tiles
    below the stacks' top tiles (each stack keeps its size), and reseed the later terrain-marker draws."""
    check_seed(seed)
    other = st.clone()
    rng = random.Random(f"{seed}:resample")
    # Each from a fixed order, so that the new deal tells nothing of the old one.
    deck = sorted(c for c in other.deck if c != ASTEROID_ID)  # the top card is the last one
    rng.shuffle(deck)
    if len(deck) < len(other.deck):
        deck.insert(rng.randrange(min(ASTEROID_DEPTH, len(other.deck))), ASTEROID_ID)
    other.deck = deck
    below = sorted(t for s in other.stacks for t in s[:-1])  # the top tile is the last one
    rng.shuffle(below)
    stacks: list[list[int]] = []
    for s in other.stacks:
        size = max(len(s) - 1, 0)
        stacks.append(below[:size] + s[-1:])
        below = below[size:]
    other.stacks = stacks
    other.seed = seed
    return other


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
