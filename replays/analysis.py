"""Move-by-move analysis of a finished match (docs/analysis.md): the engine's part, no database.

For each decision of one seat (two options or more), every option, or the played one and the best few of a cheap
first pass, is played out in G games from that position: the hidden future re-dealt per game
(`State.resample`, the same G futures for every option, so options are compared on equal deals), the seat's move
forced as a branch forces it, and every seat played on by one built-in bot. The bots are first walked through the
match's real steps (each answers, then is told what was played, as a branch walks them:
docs/branches.md#what-a-branch-is), so their memory stands where it would at that step. Each decision is then
marked by what the played option gave up against the best: inaccuracy, mistake or blunder (`mark`).

Same document, seat, bot, games and seed: the same results, byte for byte.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from engine import Decision, State
from engine.bots import Bot, make_bot
from replays.verify import Resimulation
from tournaments import sprt
from tournaments.formats.round_robin import derive_seed

DEFAULT_GAMES, MAX_GAMES = 8, 50
WIDTH = 4  # options played out G times besides the played one, when the cheap first pass had to choose
MARKS = ("inaccuracy", "mistake", "blunder")
# A loss counts once it passes a threshold and is beyond the noise of its G paired differences (docs/analysis.md#marks):
# win rate lost, in absolute terms; expected score lost, as a share of the best's. The noise: Student's t on G - 1
# degrees of freedom, at a one-sided NOISE_LEVEL shared out among the options the best was chosen from (Bonferroni),
# since the best of several equal options looks better than each by luck. Two standard errors alone marked a move
# as good as the best 17 to 25 % of the time among 5 to 16 options (tests/tournaments/test_statistics_honest.py).
NOISE_LEVEL = 0.0228  # what two standard errors leave on one side of a normal: the rule with one rival, many games
WIN_THRESHOLDS = (0.10, 0.20, 0.30)
SCORE_THRESHOLDS = (0.05, 0.10, 0.20)
MIN_GAMES_TO_MARK = 3  # with fewer paired games there is no standard error to tell a loss from luck: estimates only


@dataclass(frozen=True)
class Plan:
    """What to analyse: one seat (counted from 0) of a replay, played out by `bot` in `games` futures per option."""

    document: dict[str, Any]
    seat: int
    bot: str = "greedy"
    games: int = DEFAULT_GAMES
    seed: int = 0


def decision_steps(document: dict[str, Any], seat: int) -> list[int]:
    """The steps (1-based) at which `seat` chose among two options or more: the decisions an analysis marks."""
    sim, steps = Resimulation(document["header"]), []
    for index, record in enumerate(document["actions"]):
        decision = sim.state.decision()
        if decision is not None and decision.seat == seat and len(decision.options) > 1:
            steps.append(index + 1)
        sim.step(index, record)
    return steps


def analyse(plan: Plan, skip: Sequence[int] = ()) -> Iterator[dict[str, Any]]:
    """Each decision's result, in step order, leaving out the steps in `skip` (already done: an analysis resumes)."""
    header, actions = plan.document["header"], plan.document["actions"]
    sim = Resimulation(header)
    walkers = [make_bot(plan.bot, header["game"], derive_seed(plan.seed, seat)) for seat in range(header["players"])]
    done = set(skip)
    for index, record in enumerate(actions):
        decision = sim.state.decision()
        assert decision is not None, "a recorded step always has a decision"
        if decision.seat == plan.seat and len(decision.options) > 1 and index + 1 not in done:
            yield evaluate(plan, sim.state, decision, walkers, index + 1, record["choice"])
        walker = walkers[decision.seat]
        walker.act(sim.state.view(decision.seat) if walker.needs_view_for(decision) else None, decision)
        walker.played(decision, record["choice"])
        sim.step(index, record)


def evaluate(plan: Plan, state: State, decision: Decision, walkers: list[Bot], step: int,
             played: int) -> dict[str, Any]:
    """One decision: each option's playouts, the best option, the loss of the played one and its mark."""
    futures = [derive_seed(plan.seed, step, game) for game in range(plan.games)]
    options = range(len(decision.options))
    # The seat's bot answers the decision once, as a branch's bot does before being told what is forced: every
    # playout starts from copies of the bots as they stand then (a re-dealt position shows the seat the same view).
    answered = copy.deepcopy(walkers)
    mover = answered[decision.seat]
    mover.act(state.view(decision.seat) if mover.needs_view_for(decision) else None, decision)
    results: dict[int, list[tuple[int, int]]] = {}
    if len(decision.options) > WIDTH + 1:  # the cheap first pass: one game each, the best few go on
        results = {option: [playout(state, decision, answered, option, futures[0])] for option in options}
        ranked = sorted(options, key=lambda o: (-results[o][0][0], -results[o][0][1], o))
        kept = sorted(set(ranked[:WIDTH]) | {played})
    else:
        kept = list(options)
    for option in kept:
        have = results.get(option, [])
        results[option] = have + [playout(state, decision, answered, option, future)
                                  for future in futures[len(have):]]
    rows = [dict(option_row(option, results[option]), events=state.clone().apply(decision.options[option],
                                                                                 advance=False))
            for option in options]
    return dict(step=step, seat=decision.seat, kind=decision.kind, played=played, options=rows,
                **judge(results, played, plan.games))


def playout(state: State, decision: Decision, answered: list[Bot], option: int, future: int) -> tuple[int, int]:
    """One game from `state` with the hidden future dealt from `future` and `option` forced (`answered`: the bots
    once the seat's one has answered the decision): the seat's final score and 1 if it ranked first (ties
    included), else 0."""
    try:
        game = state.resample(future)
    except NotImplementedError:  # a game that cannot re-deal: every playout has the one future it has
        game = state.clone()
    bots = copy.deepcopy(answered)
    bots[decision.seat].played(decision, option)
    game.choose(option)
    while (now := game.decision()) is not None:
        bot = bots[now.seat]
        view = game.view(now.seat) if bot.needs_view_for(now) else None
        game.apply(now.options[bot.act(view, now)])  # the option object: apply finds it first, by identity
    outcome = game.outcome()
    assert outcome is not None
    return outcome.scores[decision.seat], int(outcome.ranks[decision.seat] == 1)


def option_row(option: int, games: list[tuple[int, int]]) -> dict[str, Any]:
    """An option's estimates (its `events`, the public events it causes, are added by `evaluate`)."""
    return {"option": option, "games": len(games), "score": _mean([s for s, _ in games]),
            "wins": _mean([w for _, w in games]), "scores": [s for s, _ in games], "won": [w for _, w in games]}


def judge(results: dict[int, list[tuple[int, int]]], played: int, games: int) -> dict[str, Any]:
    """The best option (by expected score, then win rate) among those played out in every game; what the played
    one gave up against the best by each measure, with the standard error of the paired differences; the mark."""
    full = [option for option, rows in results.items() if len(rows) == games]
    mine = results[played]
    losses = {}
    for measure, at in (("score", 0), ("wins", 1)):
        best = max(full, key=lambda o: (_mean([r[at] for r in results[o]]), _mean([r[1 - at] for r in results[o]]),
                                        -o))
        diffs = [b[at] - m[at] for b, m in zip(results[best], mine, strict=True)]
        losses[measure] = {"best": best, "loss": _mean(diffs), "se": _se(diffs),
                           "of": _mean([r[at] for r in results[best]])}
    best = max(full, key=lambda o: (_mean([r[0] for r in results[o]]), _mean([r[1] for r in results[o]]), -o))
    noise = noise_factor(games, len(full))
    return {"best": best, "loss": losses, "mark": mark(losses, noise) if games >= MIN_GAMES_TO_MARK else None}


def noise_factor(games: int, options: int) -> float:
    """How many standard errors a loss must pass: the one-sided NOISE_LEVEL quantile of Student's t on games - 1
    degrees of freedom, the level shared among the options' rivals of the played one."""
    return sprt.t_quantile(1 - NOISE_LEVEL / max(1, options - 1), max(1, games - 1))


def mark(losses: dict[str, dict[str, float]], noise: float) -> str | None:
    """The worse grade of the two measures (docs/analysis.md#marks); None when the loss is within the noise (`noise`
    standard errors)."""
    wins, score = losses["wins"], losses["score"]
    grades = [_grade(wins["loss"], wins["se"], WIN_THRESHOLDS, 1.0, noise),
              _grade(score["loss"], score["se"], SCORE_THRESHOLDS, max(1.0, abs(score["of"])), noise)]
    grade = max(grades)
    return MARKS[grade - 1] if grade else None


def _grade(loss: float, se: float, thresholds: Sequence[float], scale: float, noise: float) -> int:
    if loss <= noise * se or loss <= 0:
        return 0
    return sum(1 for threshold in thresholds if loss / scale >= threshold - 1e-12)


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _se(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return round(math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n), 4)
