"""The statistics of version tests (docs/version-tests.md): a sequential probability ratio test on duplicate deals.

Pure and standard-library only, so it can be checked against published values. The method is fishtest's
(server/fishtest/stats/LLRcalc.py in official-stockfish/fishtest): the generalized log-likelihood ratio of two
hypotheses about the mean of a discrete outcome, each fitted by maximum likelihood to the observed frequencies,
compared with Wald's bounds. For two players the outcome of a deal is the pentanomial pair score; for more, it
is the deal's score-share difference, new minus base, which takes finitely many values too
(docs/version-tests.md#the-model).

scipy.optimize.brentq (what fishtest uses) is rejected for one 1-D root on a bracketed monotone function: bisection
is ten lines, and scipy would be a large dependency for it.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.95996...
REGULARIZE = 1e-3  # fishtest's prior for an outcome never seen, so the fit exists from the first deal
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)  # a game pair's mean score: LL, LD, DD or WL, WD, WW


class BadBounds(ValueError):
    """Hypotheses or error rates a test cannot run with."""


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): the LLR at which the test accepts H0 (not better) or H1 (better). Raises BadBounds."""
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise BadBounds(f"alpha and beta must each be between 0 and 0.5 (exclusive), got alpha={alpha}, beta={beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def logistic_score(elo: float) -> float:
    """The expected score of a logistic Elo difference (fishtest's L_)."""
    return 1 / (1 + 10 ** (-elo / 400))


def _secular_root(pdf: Sequence[tuple[float, float]]) -> float:
    """The x with sum p*a / (1 + x*a) = 0, for values a of both signs (fishtest's `secular`): bisection on the
    interval where every 1 + x*a stays positive; the sum falls strictly with x there."""
    low, high = -1 / max(a for a, _ in pdf), -1 / min(a for a, _ in pdf)
    margin = (high - low) * 1e-12
    low, high = low + margin, high - margin
    for _ in range(200):
        middle = (low + high) / 2
        if sum(p * a / (1 + middle * a) for a, p in pdf) > 0:
            low = middle
        else:
            high = middle
        if high - low < 1e-15:
            break
    return (low + high) / 2


def _fitted(pdf: Sequence[tuple[float, float]], mean: float) -> list[float]:
    """The maximum-likelihood probabilities of the outcomes given that the true mean is `mean` (fishtest's
    MLE_expected, after the support document it cites: p_i / (1 + x (a_i - mean)))."""
    shifted = [(a - mean, p) for a, p in pdf]
    if min(a for a, _ in shifted) >= 0 or max(a for a, _ in shifted) <= 0:
        raise BadBounds(f"the hypothesis mean {mean} lies outside the outcomes' range")
    x = _secular_root(shifted)
    return [p / (1 + x * a) for a, p in shifted]


def llr_per_deal(pdf: Sequence[tuple[float, float]], mean0: float, mean1: float) -> float:
    """The generalized LLR per observation of H1 (mean = mean1) against H0 (mean = mean0), for an empirical
    distribution given as (value, probability) pairs."""
    fit0, fit1 = _fitted(pdf, mean0), _fitted(pdf, mean1)
    return sum(p * (math.log(q1) - math.log(q0)) for (_, p), q0, q1 in zip(pdf, fit0, fit1, strict=True))


def llr(counts: Sequence[float], values: Sequence[float], mean0: float, mean1: float) -> float:
    """The generalized LLR of H1 against H0 over all observations: counts[i] deals had outcome values[i]. Outcomes
    never seen get fishtest's small prior, so pass every value the outcome can take (at least its extremes)."""
    counts = [c if c > 0 else REGULARIZE for c in counts]
    total = sum(counts)
    pdf = [(v, c / total) for v, c in zip(values, counts, strict=True)]
    return total * llr_per_deal(pdf, mean0, mean1)


def pentanomial_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """fishtest's LLR_logistic for the pair counts [LL, LD, DD+WL, WD, WW] and logistic Elo bounds."""
    return llr(counts, PENTANOMIAL, logistic_score(elo0), logistic_score(elo1))


def trinomial_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """fishtest's LLR_logistic for the game counts [L, D, W] (no pairing)."""
    return llr(counts, (0.0, 0.5, 1.0), logistic_score(elo0), logistic_score(elo1))


def normal_llr(mean: float, variance: float, n: int, mean0: float, mean1: float) -> float:
    """The Brownian approximation of the same LLR (fishtest's LLR_alt2): n (m1 - m0)(2 m - m0 - m1) / (2 var)."""
    return n * (mean1 - mean0) * (2 * mean - mean0 - mean1) / (2 * variance) if variance > 0 else 0.0


# --- a deal's outcome and the test on them -------------------------------------------------------------------------


def rank_points(rank: int, ranks: Sequence[int]) -> float:
    """A seat's points in [0, 1] from the ranks of one game: the share of the other seats it beat, a tie half
    (a two-player win 1, draw 1/2, loss 0, as in chess)."""
    others = len(ranks) - 1
    if others == 0:
        return 1.0
    beaten = sum(1 for r in ranks if r > rank)
    tied = sum(1 for r in ranks if r == rank) - 1
    return (beaten + tied / 2) / others


def deal_value(differences: Iterable[float]) -> float:
    """One deal's outcome: the mean over its games of (new's points - base's points), in [-1, 1]. Rounded to a
    grid so equal outcomes count as one value of the discrete model."""
    values = list(differences)
    return round(sum(values) / len(values), 9)


@dataclass(frozen=True)
class Hypotheses:
    """H0: new's mean score-share difference over base is d0; H1: it is d1 (> d0). alpha: the chance of accepting
    H1 when H0 holds; beta: of accepting H0 when H1 holds."""

    d0: float
    d1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not -1 < self.d0 < self.d1 < 1:
            raise BadBounds(f"the bounds must satisfy -1 < d0 < d1 < 1 (score-share differences), got d0={self.d0}, "
                            f"d1={self.d1}")
        wald_bounds(self.alpha, self.beta)

    @property
    def bounds(self) -> tuple[float, float]:
        return wald_bounds(self.alpha, self.beta)


ACCEPT, REJECT, CONTINUE = "accepted", "rejected", "continue"


def deal_llr(deals: Sequence[float], hypotheses: Hypotheses) -> float:
    """The generalized LLR of H1 against H0 from the deals' outcomes (values in [-1, 1]); 0 with no deal."""
    if not deals:
        return 0.0
    counts = Counter(deals)
    counts.setdefault(-1.0, 0)  # the extremes are always possible: they keep both hypotheses inside the range
    counts.setdefault(1.0, 0)
    values = sorted(counts)
    return llr([counts[v] for v in values], values, hypotheses.d0, hypotheses.d1)


def decide(llr_value: float, hypotheses: Hypotheses) -> str:
    """ACCEPT (new is better by d1), REJECT (it is not better than d0), or CONTINUE."""
    lower, upper = hypotheses.bounds
    if llr_value >= upper:
        return ACCEPT
    if llr_value <= lower:
        return REJECT
    return CONTINUE


# --- intervals -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95 % interval."""

    mean: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, float | int]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n}


def mean_interval(values: Sequence[float], within: tuple[float, float] | None = None) -> Estimate | None:
    """The mean of independent observations with a 95 % interval: Student's t on the sample variance, and, for values
    bounded `within` a range, one more observation at each end of it (as Agresti and Coull add two to a proportion),
    clipped to it. A normal interval on few deals or games covered the truth far less often than it said: 50 to 78 %
    of the time on four deals, none on one game (each zero-width), as the simulations in
    tests/tournaments/test_statistics_honest.py measured. None when empty, or a single unbounded value."""
    n = len(values)
    if n == 0 or (n == 1 and within is None):
        return None
    mean = sum(values) / n
    padded = [*values, *within] if within is not None else list(values)
    centre = sum(padded) / len(padded)
    variance = sum((v - centre) ** 2 for v in padded) / (len(padded) - 1)
    half = t_quantile(0.975, len(padded) - 1) * math.sqrt(variance / len(padded))
    low, high = within or (-math.inf, math.inf)
    return Estimate(mean, max(low, min(mean, centre - half)), min(high, max(mean, centre + half)), n)


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile (p > 1/2) of Student's t with df degrees of freedom: bisection on its distribution function,
    exact for whole df, and past 100 degrees Cornish and Fisher's expansion about the normal's (within 1e-5 there);
    the standard library has no t, and scipy, with numpy, would be a large dependency for it."""
    if df > 100:
        z = NormalDist().inv_cdf(p)
        return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
                + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))
    low, high = 0.0, 1.0
    while _t_central(high, df) < 2 * p - 1:
        high *= 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_central(mid, df) < 2 * p - 1 else (low, mid)
    return (low + high) / 2


def _t_central(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with whole df: the finite series in cos(theta), theta = atan(t / sqrt(df))
    (Abramowitz and Stegun 26.7.3 and 26.7.4)."""
    theta = math.atan(t / math.sqrt(df))
    c2, term, total = math.cos(theta) ** 2, 1.0, 1.0
    if df % 2 == 0:
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return math.sin(theta) * total
    for k in range(1, (df - 1) // 2):
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return (2 / math.pi) * (theta + (math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0))


def wilson_interval(successes: float, n: int) -> Estimate | None:
    """A proportion with its Wilson score 95 % interval (sound near 0 and 1); None when n is 0."""
    if n == 0:
        return None
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile (0..1) by linear interpolation between closest ranks; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)
