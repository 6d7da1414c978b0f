"""`greedy_epsNN`: greedy with NN % random moves, a ladder of known strengths (engine/bots/epsilon.py)."""

from __future__ import annotations

import pytest

from engine.bots import is_bot_name, make_bot
from engine.bots.epsilon import EpsilonGreedyBot, epsilon_of
from engine.core import Decision


@pytest.mark.parametrize(("name", "epsilon"), [("greedy_eps0", 0.0), ("greedy_eps25", 0.25), ("greedy_eps100", 1.0),
                                               ("greedy_eps101", None), ("greedy_eps", None), ("greedy", None)])
def test_the_name_gives_the_random_share(name: str, epsilon: float | None) -> None:
    assert epsilon_of(name) == epsilon


def test_it_is_a_built_in_bot_name() -> None:
    assert is_bot_name("greedy_eps50") and is_bot_name("random") and not is_bot_name("greedy_eps500")
    assert isinstance(make_bot("greedy_eps50", "evolution", 1), EpsilonGreedyBot)


def test_it_plays_randomly_at_the_given_rate_and_deterministically() -> None:
    decision = Decision(seat=0, kind="nothing_scored", options=["pass", "a", "b", "c"], prompt="")
    choices = [make_bot("greedy_eps50", "tinygame", 7).act({}, decision) for _ in range(1)]
    bot = make_bot("greedy_eps50", "tinygame", 7)
    picks = [bot.act({}, decision) for _ in range(2000)]
    again = make_bot("greedy_eps50", "tinygame", 7)
    assert picks == [again.act({}, decision) for _ in range(2000)]
    # greedy never passes (generic scorer); random passes a quarter of its half of the moves
    assert 0.09 < picks.count(0) / len(picks) < 0.16
    assert choices[0] in range(4)
