"""Cheap deep copies of the built-in bots: replays/analysis.py deep-copies its walkers for every playout.

A bot's memory is its rng and what its scorer remembers of its last decisions. copy.deepcopy of a random.Random
goes through its 625-word state as a generic object (about ten times slower than getstate/setstate), and a scorer
that keeps the last view would have it copied whole, though the scorer only ever replaces it. So each bot defines
`__deepcopy__`: the rng through `copy_rng`, and scorers a shallow copy, sharing only objects they never change in
place (a scorer that starts changing one in place must copy it in its `__deepcopy__`).
"""

from __future__ import annotations

import random


def copy_rng(rng: random.Random) -> random.Random:
    """A generator in the same state, independent of rng."""
    clone = random.Random.__new__(random.Random)  # not Random(): no seeding from the OS, the state is set next
    clone.setstate(rng.getstate())
    return clone
