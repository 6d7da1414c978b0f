"""The version-test statistics (tournaments/sprt.py) against published values, and simulated tests whose error
rates must match the alpha and beta they were designed with."""

from __future__ import annotations

import math
import random

import pytest

from tournaments.sprt import (
    ACCEPT,
    CONTINUE,
    REJECT,
    BadBounds,
    Hypotheses,
    deal_llr,
    deal_value,
    decide,
    mean_interval,
    normal_llr,
    pentanomial_llr,
    percentile,
    rank_points,
    t_quantile,
    trinomial_llr,
    wald_bounds,
    wilson_interval,
)

# Published LLRs of fishtest's LLR_logistic, as pinned by fastchess's own tests of its SPRT ("logistic trinomial
# 1, 2", "logistic pentanomial 1, 2"), to their two decimals.
PENTANOMIAL_CASES = [
    ([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5, -3.07),
    ([871, 26175, 55003 + 980, 26678, 821], 0.0, 2.0, -4.98),
]
TRINOMIAL_CASES = [
    ([21184, 40708, 21404], 0.5, 2.5, -1.57),
    ([57030, 106593, 57433], 0.0, 2.0, -2.59),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "published"), PENTANOMIAL_CASES)
def test_it_matches_fishtests_pentanomial_llr(counts, elo0, elo1, published):
    assert pentanomial_llr(counts, elo0, elo1) == pytest.approx(published, abs=0.005)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "published"), TRINOMIAL_CASES)
def test_it_matches_fishtests_trinomial_llr(counts, elo0, elo1, published):
    assert trinomial_llr(counts, elo0, elo1) == pytest.approx(published, abs=0.005)


def test_it_gives_walds_bounds():
    # Wald (1945): A = ln((1 - beta) / alpha), B = ln(beta / (1 - alpha)); 2.944 for alpha = beta = 0.05.
    assert wald_bounds(0.05, 0.05) == pytest.approx((-2.944439, 2.944439), abs=1e-6)
    assert wald_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


@pytest.mark.parametrize(("d0", "d1", "alpha", "beta"), [
    (0.0, 0.0, 0.05, 0.05), (0.1, 0.0, 0.05, 0.05), (-1.0, 0.1, 0.05, 0.05), (0.0, 1.0, 0.05, 0.05),
    (0.0, 0.1, 0.0, 0.05), (0.0, 0.1, 0.05, 0.5), (0.0, 0.1, -0.1, 0.05),
])
def test_it_refuses_bounds_a_test_cannot_run_with(d0, d1, alpha, beta):
    with pytest.raises(BadBounds, match="must"):
        Hypotheses(d0, d1, alpha, beta)


def test_the_exact_llr_agrees_with_its_normal_approximation_near_the_hypotheses():
    rng = random.Random(3)
    deals = [rng.choice([-0.5, 0.0, 0.0, 0.5]) for _ in range(2000)]  # mean near d0 and d1
    estimate = mean_interval(deals)
    variance = sum((d - estimate.mean) ** 2 for d in deals) / len(deals)
    hyp = Hypotheses(0.0, 0.02)
    assert deal_llr(deals, hyp) == pytest.approx(normal_llr(estimate.mean, variance, len(deals), 0.0, 0.02), rel=0.02)


def test_it_scores_ranks_as_points_with_ties_halved():
    assert [rank_points(r, [1, 2]) for r in (1, 2)] == [1.0, 0.0]
    assert rank_points(1, [1, 1]) == 0.5
    assert [rank_points(r, [1, 2, 3]) for r in (1, 2, 3)] == [1.0, 0.5, 0.0]
    assert rank_points(1, [1, 1, 3]) == 0.75
    assert deal_value([1.0, -0.5]) == 0.25


def test_a_deal_llr_is_zero_before_any_deal_and_decides_on_its_bounds():
    hyp = Hypotheses(0.0, 0.1)
    assert deal_llr([], hyp) == 0.0
    assert decide(0.0, hyp) == CONTINUE
    assert decide(3.0, hyp) == ACCEPT
    assert decide(-3.0, hyp) == REJECT
    assert deal_llr([1.0] * 40, hyp) > 2.95  # forty clean sweeps: better
    assert deal_llr([-1.0] * 40, hyp) < -2.95


def test_intervals_match_textbook_values():
    # Wilson (1927) for 8 of 10, as in Agresti & Coull (1998): about (0.490, 0.943).
    wilson = wilson_interval(8, 10)
    assert (wilson.low, wilson.high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    student = mean_interval([1.0, 2.0, 3.0, 4.0])  # mean 2.5, s = 1.291, t(3) = 3.182: 2.5 -+ 3.182 * 1.291 / 2
    assert (student.low, student.high) == pytest.approx((2.5 - 2.0543, 2.5 + 2.0543), abs=1e-4)
    assert [round(t_quantile(0.975, df), 3) for df in (1, 2, 5, 30)] == [12.706, 4.303, 2.571, 2.042]  # the tables
    assert mean_interval([]) is None and wilson_interval(0, 0) is None and mean_interval([3.0]) is None
    # Bounded: one more value at each end (-1 and 1, mean 0.5, s = 0.837, t(5)): 0.5 -+ 2.571 * 0.837 / sqrt(6),
    # clipped to the range: a lead cannot pass 1
    clipped = mean_interval([1.0, 1.0, 0.0, 1.0], within=(-1.0, 1.0))
    assert clipped.mean == 0.75 and clipped.high == 1.0 and clipped.low == pytest.approx(0.5 - 0.8783, abs=1e-3)
    one_game = mean_interval([1.0], within=(0.0, 1.0))  # one game tells little: not a zero-width interval
    assert one_game.mean == 1.0 and one_game.low < 0.5 and one_game.high == 1.0
    assert percentile([1, 2, 3, 4], 0.5) == 2.5 and percentile([5], 0.95) == 5


# --- simulated tests ---------------------------------------------------------------------------------------------


def _tilted(values, base, mean):
    """The distribution closest to `base` (exponential tilting) with the planted mean."""
    def weights(theta):
        return [b * math.exp(theta * v) for v, b in zip(values, base, strict=True)]
    low, high = -60.0, 60.0
    for _ in range(100):
        middle = (low + high) / 2
        w = weights(middle)
        below = sum(x * v for x, v in zip(w, values, strict=True)) / sum(w) < mean
        low, high = (middle, high) if below else (low, middle)
    w = weights(low)
    return [x / sum(w) for x in w]


def _run(rng, values, probs, hyp, batch=8, cap=4000):
    deals: list[float] = []
    while len(deals) < cap:
        deals += rng.choices(values, probs, k=batch)  # a batch of deals, then the LLR, as the runner does
        verdict = decide(deal_llr(deals, hyp), hyp)
        if verdict != CONTINUE:
            return verdict
    return CONTINUE


def _accept_rate(values, base, planted, hyp, runs=300, seed=11):
    rng, probs = random.Random(seed), _tilted(values, base, planted)
    return sum(_run(rng, values, probs, hyp) == ACCEPT for _ in range(runs)) / runs


THREE_PLAYERS = [k / 8 for k in range(-8, 9)]  # a deal's mean of two games' point differences, 3 seats
TWO_PLAYERS = [-1.0, -0.5, 0.0, 0.5, 1.0]  # the pentanomial, as differences
RUNS = 300
TOLERANCE = 3 * math.sqrt(0.05 * 0.95 / RUNS)  # three standard errors of a rate near 5 % over RUNS runs


@pytest.mark.parametrize("values", [THREE_PLAYERS, TWO_PLAYERS], ids=["3 players", "2 players"])
def test_a_version_against_itself_passes_at_most_at_alpha(values):
    hyp = Hypotheses(0.0, 0.1, alpha=0.05, beta=0.05)
    base = [math.exp(-3 * abs(v)) for v in values]
    rate = _accept_rate(values, base, planted=0.0, hyp=hyp)  # truth at d0: accepting "better" is the alpha error
    assert abs(rate - 0.05) <= TOLERANCE + 0.02, rate  # Wald's bounds are conservative: overshoot lowers it a little


@pytest.mark.parametrize("values", [THREE_PLAYERS, TWO_PLAYERS], ids=["3 players", "2 players"])
def test_a_planted_improvement_of_d1_passes_at_1_minus_beta(values):
    hyp = Hypotheses(0.0, 0.1, alpha=0.05, beta=0.05)
    base = [math.exp(-3 * abs(v)) for v in values]
    rate = _accept_rate(values, base, planted=0.1, hyp=hyp)
    assert abs((1 - rate) - 0.05) <= TOLERANCE + 0.02, rate


def test_a_planted_loss_is_rejected_and_a_large_gain_accepted_almost_always():
    hyp = Hypotheses(0.0, 0.1)
    base = [math.exp(-3 * abs(v)) for v in THREE_PLAYERS]
    assert _accept_rate(THREE_PLAYERS, base, planted=-0.1, hyp=hyp, runs=100) <= 0.01
    assert _accept_rate(THREE_PLAYERS, base, planted=0.25, hyp=hyp, runs=100) >= 0.99
