"""A batch of resampled branches, summarised (docs/branches.md#batches): per seat, wins and mean score with 95 %
intervals, beside the parent's outcome, and one line saying whether the change made a difference the batch can see.

A batch is every resampled branch of one parent with the same step, forced option and bots: the same change played
in several re-dealt futures (two requests alike add up to one batch).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from tournaments import sprt
from tournaments.models import Match

Key = tuple[int | None, int | None, tuple[int, ...]]


def batches(parent: Match) -> list[dict[str, Any]]:
    """The parent's batches (resampled branches grouped by step, forced option and bots), oldest first."""
    groups: dict[Key, list[Match]] = defaultdict(list)
    branches = (Match.objects.filter(parent=parent, branch_resample__isnull=False).order_by("pk")
                .prefetch_related("seats"))
    for branch in branches:
        groups[key_of(branch)].append(branch)
    return [summarise(parent, members) for members in groups.values()]


def batch_of(branch: Match) -> dict[str, Any] | None:
    """The summary of the batch this branch belongs to; None for a branch that was not resampled."""
    if branch.parent is None or branch.branch_resample is None:
        return None
    key = key_of(branch)
    members = [b for b in Match.objects.filter(parent=branch.parent, branch_step=branch.branch_step,
                                               branch_force=branch.branch_force, branch_resample__isnull=False)
               .order_by("pk").prefetch_related("seats") if key_of(b) == key]
    return summarise(branch.parent, members)


def key_of(branch: Match) -> Key:
    versions = tuple(seat.bot_version_id for seat in sorted(branch.seats.all(), key=lambda s: s.number))
    return branch.branch_step, branch.branch_force, versions


def summarise(parent: Match, members: list[Match]) -> dict[str, Any]:
    """Per seat (counted from 1): the parent's score and whether it won; the batch's wins and mean score, each with
    its 95 % interval; and the verdict."""
    played = [m for m in members if m.status == Match.Status.FINISHED]
    tables = [sorted(m.seats.all(), key=lambda s: s.number) for m in played]
    seats = []
    for old in sorted(parent.seats.all(), key=lambda s: s.number):
        scores = [float(table[old.number].score or 0) for table in tables]
        wins = sum(1 for table in tables if table[old.number].rank == 1)
        seats.append({"seat": old.number + 1, "parent_score": old.score, "parent_won": old.rank == 1,
                      "games": len(scores), "wins": wins, "win_rate": _as_dict(sprt.wilson_interval(wins, len(scores))),
                      "score": _as_dict(sprt.mean_interval(scores)), "usual": usual_range(scores, parent.num_players)})
    first = members[0]
    return {"step": first.branch_step, "force": first.branch_force, "branches": [m.pk for m in members],
            "games": len(members), "finished": len(played), "seats": seats, "said": verdict(seats, len(played))}


def usual_range(scores: list[float], seats: int) -> dict[str, float] | None:
    """Where one more game of the batch would score, for 95 % of games over all the seats at once (a prediction
    interval: mean ± t·sd·√(1 + 1/n), t Student's for n − 1 degrees of freedom at 1 − 0.025/seats): the parent, one
    game, is compared with this, not with the mean's interval, which narrows as the batch grows while one game's
    luck does not."""
    n = len(scores)
    if n < 2:
        return None
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1))
    half = t_quantile(1 - 0.025 / seats, n - 1) * sd * math.sqrt(1 + 1 / n)
    return {"low": round(mean - half, 1), "high": round(mean + half, 1)}


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (0.5 < p < 1) for whole degrees of freedom, by bisection on the closed form of
    P(|T| < t) (Abramowitz and Stegun 26.7.3-4): no statistics library for a dozen seats."""

    def within(t: float) -> float:
        theta = math.atan(t / math.sqrt(df))
        cos2, term, total = math.cos(theta) ** 2, 1.0, 1.0
        for k in range(2 if df % 2 else 1, df - 1, 2):  # odd df: 2/3 cos², ...; even df: 1/2 cos², ...
            term *= cos2 * k / (k + 1)
            total += term
        if df % 2 == 0:
            return math.sin(theta) * total
        return 2 / math.pi * (theta + (math.sin(theta) * math.cos(theta) * total if df > 1 else 0.0))

    low, high = 0.0, 1e6
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if 0.5 + within(middle) / 2 < p else (low, middle)
    return round((low + high) / 2, 4)


def verdict(seats: list[dict[str, Any]], games: int) -> str:
    """One line: does the batch see the parent's outcome as one of its own, seat by seat?"""
    if games < 2:
        return (f"{games} game{'s' if games != 1 else ''} played so far: too few to tell whether the change made a "
                "difference")
    apart = [row for row in seats if row["usual"] and row["parent_score"] is not None
             and not row["usual"]["low"] <= row["parent_score"] <= row["usual"]["high"]]
    if not apart:
        return (f"No difference the batch can see: in {games} games every seat's parent score is one a game of the "
                "batch could have (95 % of its games fall in the ranges shown)")
    parts = [f"seat {row['seat']} scored {row['parent_score']} in the parent, where the batch's games score "
             f"{row['usual']['low']:g} to {row['usual']['high']:g} (mean {row['score']['mean']:.1f})" for row in apart]
    return f"A difference the batch can see in {games} games: " + "; ".join(parts)


def _as_dict(estimate: sprt.Estimate | None) -> dict[str, float] | None:
    if estimate is None:
        return None
    return {"mean": round(estimate.mean, 3), "low": round(estimate.low, 3), "high": round(estimate.high, 3),
            "n": estimate.n}


def lines(summary: dict[str, Any]) -> list[str]:
    """The batch as the command prints it: one line per seat, then the verdict."""
    out = [f"batch of {summary['games']} resampled branches at step {summary['step']} "
           f"({summary['finished']} finished): against the parent's outcome"]
    for row in summary["seats"]:
        won = "won" if row["parent_won"] else "did not win"
        batch = "no game yet"
        if row["games"]:
            rate, score = row["win_rate"], row["score"]
            batch = (f"wins {row['wins']} of {row['games']} (95 % {rate['low']:.0%} to {rate['high']:.0%}), mean score "
                     f"{score['mean']:.1f} (95 % {score['low']:.1f} to {score['high']:.1f})")
        out.append(f"  seat {row['seat']}: parent {row['parent_score']}, {won}; batch {batch}")
    out.append(summary["said"])
    return out
