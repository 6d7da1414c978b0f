"""The SPRT on real games: bots that play greedy with probability p, else at random (engine/bots/epsilon.py), at two
values of p. Real Marine deals (both seatings of each seed) are played once, in the engine alone; the simulated tests
then draw their deals from what was played (a bootstrap), so the planted truth is known exactly: the played deals'
mean. Their pass rates must match alpha and beta (docs/version-tests.md#the-model)."""

from __future__ import annotations

import math
import random
from functools import cache

import pytest

from engine import load_game
from engine.bots import make_bot
from tournaments.sprt import ACCEPT, CONTINUE, Hypotheses, deal_llr, deal_value, decide, rank_points

pytestmark = pytest.mark.slow  # some 250 real games

DEALS = 60
RUNS = 300
TOLERANCE = 3 * math.sqrt(0.05 * 0.95 / RUNS) + 0.02  # three standard errors, and the batches' overshoot


def points(seed: int, names: tuple[str, str], game: int) -> list[float]:
    """One game's rank points by seat. The bots' own random moves come from a stream per game and seat, so the two
    games of a deal are not mirror images of each other (the deal, from `seed`, is the same)."""
    spec = load_game("marine")
    state = spec.new_state(2, seed, spec.validate_options({}))
    bots = [make_bot(name, "marine", seed * 7 + 3 * game + seat) for seat, name in enumerate(names)]
    while (decision := state.decision()) is not None:
        bot = bots[decision.seat]
        state.choose(bot.act(state.view(decision.seat) if bot.needs_view else None, decision))
    ranks = state.outcome().ranks
    return [rank_points(rank, ranks) for rank in ranks]


@cache
def played(new: str, base: str) -> tuple[float, ...]:
    """Each deal's lead of new over base: the seed played with new in seat 0, then in seat 1."""
    deals = []
    for seed in range(1, DEALS + 1):
        first, second = points(seed, (new, base), 0), points(seed, (base, new), 1)
        deals.append(deal_value([first[0] - first[1], second[1] - second[0]]))
    return tuple(deals)


def pass_rate(deals: tuple[float, ...], hyp: Hypotheses, seed: int = 5) -> float:
    rng, passed = random.Random(seed), 0
    for _ in range(RUNS):
        drawn: list[float] = []
        verdict = CONTINUE
        while verdict == CONTINUE and len(drawn) < 4000:
            drawn += rng.choices(deals, k=8)
            verdict = decide(deal_llr(drawn, hyp), hyp)
        passed += verdict == ACCEPT
    return passed / RUNS


def test_a_bot_against_itself_passes_at_most_at_alpha():
    deals = played("greedy_eps50", "greedy_eps50")
    symmetric = deals + tuple(-d for d in deals)  # against itself the lead's law is symmetric: its mean is 0
    rate = pass_rate(symmetric, Hypotheses(0.0, 0.1))
    assert abs(rate - 0.05) <= TOLERANCE, rate


def test_a_planted_lead_passes_at_1_minus_beta_and_one_short_of_it_at_alpha():
    deals = played("greedy_eps40", "greedy_eps50")  # greedy 60 % of the time against 50 %
    truth = sum(deals) / len(deals)
    assert truth > 0  # the more greedy bot leads
    assert abs((1 - pass_rate(deals, Hypotheses(truth - 0.1, truth))) - 0.05) <= TOLERANCE
    assert abs(pass_rate(deals, Hypotheses(truth, truth + 0.1)) - 0.05) <= TOLERANCE
