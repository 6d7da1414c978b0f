"""`greedy_epsNN`: the greedy bot, but NN % of its decisions (NN from 0 to 100) are uniformly random.

A family of bots of known, ordered strength, for testing that ladders rank bots in the true order.
"""

from __future__ import annotations

import copy
import random
import re
from typing import Any

from engine.bots.copying import copy_rng
from engine.bots.greedy import GreedyBot
from engine.core import Decision

NAME = re.compile(r"greedy_eps(\d{1,3})")


def epsilon_of(name: str) -> float | None:
    """The random share named by `greedy_epsNN`, or None when the name is not of that form (or NN > 100)."""
    match = NAME.fullmatch(name)
    if match is None or int(match.group(1)) > 100:
        return None
    return int(match.group(1)) / 100


class EpsilonGreedyBot:
    needs_view = True

    def __init__(self, game: str, seed: int, epsilon: float) -> None:
        self.epsilon = epsilon
        self._rng = random.Random(seed ^ 0x5EED)
        self._greedy = GreedyBot(game, seed)

    def __deepcopy__(self, memo: dict[int, Any]) -> EpsilonGreedyBot:
        clone = copy.copy(self)
        clone._rng = copy_rng(self._rng)
        clone._greedy = copy.deepcopy(self._greedy, memo)
        return clone

    def needs_view_for(self, decision: Decision) -> bool:
        """As greedy's: the random moves score the decision too (for the scorer's memory), as greedy would."""
        return self._greedy.needs_view_for(decision)

    def act(self, view: dict[str, Any] | None, decision: Decision) -> int:
        if len(decision.options) > 1 and self._rng.random() < self.epsilon:
            choice = self._rng.randrange(len(decision.options))
            # A scorer that plans ahead must know what was played, for the decision it last scored.
            self._greedy._scorer.score(view or {}, decision)
            self._greedy._scorer.chosen(choice)
            return choice
        return self._greedy.act(view, decision)

    def played(self, decision: Decision, choice: int) -> None:
        self._greedy.played(decision, choice)
