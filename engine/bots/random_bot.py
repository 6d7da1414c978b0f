"""`random`: uniform over the offered options, from its own seed."""

from __future__ import annotations

import random
from typing import Any

from engine.bots.copying import copy_rng
from engine.core import Decision


class RandomBot:
    needs_view = False  # the simulator skips building views for it

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def __deepcopy__(self, memo: dict[int, Any]) -> RandomBot:
        clone = RandomBot.__new__(RandomBot)
        clone._rng = copy_rng(self._rng)
        return clone

    def needs_view_for(self, decision: Decision) -> bool:
        return False

    def act(self, view: dict[str, Any] | None, decision: Decision) -> int:
        return self._rng.randrange(len(decision.options))

    def played(self, decision: Decision, choice: int) -> None:
        pass  # no memory but its rng, which act already drew from
