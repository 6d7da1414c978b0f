"""Whether the numbers Ludus shows bot authors are honest (version tests, move analysis, head to head).

Every check calls the project's own functions (tournaments.sprt, tournaments.version_tests' stop logic and tally,
replays.analysis' evaluate/judge, replays.head_to_head, engine resample) on synthetic data with fixed seeds, and
FAILS when a documented claim does not hold. No database is used. The intervals at few deals or games, the marks of
equally good moves and the head-to-head's count of games failed here before their fixes (docs/version-tests.md,
docs/analysis.md).
"""

from __future__ import annotations

import copy
import functools
import math
import random
from types import SimpleNamespace

import pytest

from tournaments import sprt
from tournaments import version_tests as vt
from tournaments.models import Match, VersionTest

pytestmark = pytest.mark.slow  # simulations, about 200 s of CPU: make test runs them, make check does not

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def fmt_rate(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k}/{n} = {k / n:.4f} (95% Wilson [{low:.4f}, {high:.4f}])"


def tilted(values: list[float], base: list[float], mean: float) -> list[float]:
    """The distribution closest to `base` (exponential tilting) with the planted mean."""
    def tilt(theta: float) -> list[float]:
        top = max(theta * v for v in values)
        w = [b * math.exp(theta * v - top) for v, b in zip(values, base, strict=True)]
        s = sum(w)
        return [x / s for x in w]
    low, high = -80.0, 80.0
    for _ in range(200):
        middle = (low + high) / 2
        p = tilt(middle)
        if sum(x * v for x, v in zip(p, values, strict=True)) < mean:
            low = middle
        else:
            high = middle
    p = tilt((low + high) / 2)
    assert abs(sum(x * v for x, v in zip(p, values, strict=True)) - mean) < 1e-9
    return p


# --- per-deal outcome distributions (X = new's score-share lead on a deal) -----------------------------------------

TWO = [-1.0, -0.5, 0.0, 0.5, 1.0]                      # 2 players: the pentanomial as differences
THREE = [k / 8 for k in range(-8, 9)]                  # 3 players
FOUR = [k / 12 for k in range(-12, 13)]                # 4 players

SCENARIOS = {
    # chess-like 2-player: most pairs split or draw (ties)
    "2p-drawish": (TWO, [0.03, 0.17, 0.60, 0.17, 0.03]),
    # 3 players, symmetric, peaked at 0
    "3p-peaked": (THREE, [math.exp(-3 * abs(v)) for v in THREE]),
    # 3 players, skewed: many small losses, rare big wins (a risky new version)
    "3p-skewed": (THREE, [(0.30 if v == 0 else 0.12 if v in (-0.125, -0.25) else 0.02 if v > 0.5 else 0.01)
                          for v in THREE]),
    # 4 players: new changes few decisions -- X is exactly 0 on most deals
    "4p-rare-change": (FOUR, [(1.0 if v == 0 else 0.02 if abs(v) <= 0.25 else 0.004) for v in FOUR]),
}


# --- the version test's loop, with the project's own tally summary and stop rule -----------------------------------


def run_test(rng: random.Random, values: list[float], probs: list[float], hyp: sprt.Hypotheses,
             batch_deals: int = 4, max_games: int = 2000) -> SimpleNamespace:
    """One simulated version test: deals drawn i.i.d. from (values, probs); after each batch the project's
    version_tests._summarize (LLR, intervals) and version_tests._next_step (decide / cap / next batch) run on a
    stand-in test object, as advance_test does. queue_batch is replaced by the same count rule without a database."""
    test = SimpleNamespace(d0=hyp.d0, d1=hyp.d1, alpha=hyp.alpha, beta=hyp.beta, max_games=max_games,
                           batch_deals=batch_deals, results=vt._empty_results(hyp), games_played=0, llr=0.0,
                           status=VersionTest.Status.RUNNING, finished_at=None)
    state = {"scheduled": 0}

    def queue(t: SimpleNamespace) -> int:  # version_tests.queue_batch's count, no database
        deals = min(t.batch_deals, (t.max_games - state["scheduled"]) // 2)
        if deals <= 0:
            return 0
        state["scheduled"] += 2 * deals
        return 2 * deals

    original = (vt.queue_batch, vt.may_queue_batch)
    vt.queue_batch, vt.may_queue_batch = queue, lambda: True
    try:
        queue(test)
        deal = 0
        while True:
            while 2 * deal < state["scheduled"]:  # play the queued batch
                x = rng.choices(values, probs)[0]
                test.results["deals"][str(deal)] = sprt.deal_value([x, x])
                test.results["wins"][str(deal)] = 0.0
                test.games_played += 2
                deal += 1
            vt._summarize(test)
            outcome = vt._next_step(test, state["scheduled"])
            if outcome != VersionTest.Status.RUNNING:
                break
    finally:
        vt.queue_batch, vt.may_queue_batch = original
    test.outcome = outcome
    test.deals = deal
    return test


RUNS = 400


@functools.cache
def simulate(name: str, planted: str, batch_deals: int = 4, max_games: int = 2000, d0: float = 0.0,
             d1: float = 0.05, runs: int = RUNS) -> dict:
    values, base = SCENARIOS[name]
    hyp = sprt.Hypotheses(d0, d1, 0.05, 0.05)  # the API's defaults: d0 0, d1 0.05, alpha = beta = 0.05
    truth = d0 if planted == "d0" else d1
    probs = tilted(values, base, truth)
    rng = random.Random(f"stats:{name}:{planted}:{batch_deals}:{max_games}:{d0}:{d1}")
    out = {"passed": 0, "failed": 0, "capped": 0, "other": 0, "covered": 0, "n": 0, "deals": [],
           "bad_cap": 0, "truth": truth}
    lower, upper = hyp.bounds
    for _ in range(runs):
        t = run_test(rng, values, probs, hyp, batch_deals, max_games)
        out["n"] += 1
        out[t.outcome if t.outcome in ("passed", "failed", "capped") else "other"] += 1
        out["deals"].append(t.deals)
        score = t.results["score"]
        out["covered"] += score["low"] <= truth <= score["high"]
        # a cap is reported as such: never above the cap, and only a test whose LLR is between the bounds
        if t.games_played > max_games or (t.outcome == "capped" and not lower < t.llr < upper) or \
                (t.outcome == "passed" and t.llr < upper) or (t.outcome == "failed" and t.llr > lower):
            out["bad_cap"] += 1
    return out


def three_se(rate: float, n: int) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / n)


SPRT_CASES = [("2p-drawish", 4), ("3p-peaked", 4), ("3p-skewed", 4), ("4p-rare-change", 4), ("2p-drawish", 1)]


@pytest.mark.parametrize(("name", "batch"), SPRT_CASES)
def test_sprt_passes_at_most_alpha_when_lead_is_d0(name, batch):
    s = simulate(name, "d0", batch, runs=1500 if batch == 1 else RUNS)  # batch 1: the most looks, more runs
    print(f"\n[{name}, batch_deals={batch}] truth d0=0: passed {fmt_rate(s['passed'], s['n'])}, "
          f"failed {s['failed']}, capped {s['capped']}, median deals {sorted(s['deals'])[len(s['deals']) // 2]}")
    assert s["other"] == 0 and s["bad_cap"] == 0
    assert s["passed"] / s["n"] <= 0.05 + three_se(0.05, s["n"]), \
        f"false-pass rate {fmt_rate(s['passed'], s['n'])} above alpha=0.05 + 3 SE"


@pytest.mark.parametrize(("name", "batch"), SPRT_CASES)
def test_sprt_fails_at_most_beta_when_lead_is_d1(name, batch):
    s = simulate(name, "d1", batch)
    print(f"\n[{name}, batch_deals={batch}] truth d1=0.05: failed {fmt_rate(s['failed'], s['n'])}, "
          f"passed {s['passed']}, capped {s['capped']}, median deals {sorted(s['deals'])[len(s['deals']) // 2]}")
    assert s["other"] == 0 and s["bad_cap"] == 0
    assert s["failed"] / s["n"] <= 0.05 + three_se(0.05, s["n"]), \
        f"false-fail rate {fmt_rate(s['failed'], s['n'])} above beta=0.05 + 3 SE"


def test_a_capped_test_is_reported_capped_never_over_the_cap():
    rng = random.Random(7)
    values, base = SCENARIOS["3p-peaked"]
    probs = tilted(values, base, 0.025)  # halfway between d0 and d1: the hardest case
    hyp = sprt.Hypotheses(0.0, 0.05)
    outcomes = {}
    for cap in (2, 3, 9, 40, 41, 100):
        for _ in range(40):
            t = run_test(rng, values, probs, hyp, batch_deals=4, max_games=cap)
            outcomes[t.outcome] = outcomes.get(t.outcome, 0) + 1
            assert t.games_played <= cap
            lower, upper = hyp.bounds
            if t.outcome == "capped":
                assert lower < t.llr < upper
            # the cap is reached: no room for one more deal
            if t.outcome == "capped":
                assert t.games_played + 2 > cap
    print(f"\noutcomes at small caps: {outcomes}")
    assert outcomes.get("capped", 0) > 0


# --- the intervals the test page shows ----------------------------------------------------------------------------

COVERAGE_REPS = 3000
MIN_COVERAGE = 0.925  # "95 %": allow 2.5 points before calling it dishonest (SE of the estimate ~0.004)
AT_THE_STOP = 0.87  # docs/version-tests.md, "Not corrected for the early stop": 91 to 94.5 %, measured


@pytest.mark.parametrize("n", [4, 8, 30, 200])
@pytest.mark.parametrize("name", ["2p-drawish", "3p-skewed", "4p-rare-change"])
def test_score_lead_interval_covers_95_percent_at_fixed_n(name, n):
    values, base = SCENARIOS[name]
    truth = 0.05
    probs = tilted(values, base, truth)
    rng = random.Random(f"cov:{name}:{n}")
    covered = zero_width = 0
    for _ in range(COVERAGE_REPS):
        deals = [sprt.deal_value([x, x]) for x in rng.choices(values, probs, k=n)]
        est = sprt.mean_interval(deals, within=(-1.0, 1.0))
        covered += est.low <= truth <= est.high
        zero_width += est.low == est.high
    print(f"\n[{name}, n={n} deals] coverage {fmt_rate(covered, COVERAGE_REPS)}, zero-width intervals "
          f"{zero_width}")
    assert covered / COVERAGE_REPS >= MIN_COVERAGE, \
        f"95% interval covers the true lead {fmt_rate(covered, COVERAGE_REPS)} at n={n} ({name})"


@pytest.mark.parametrize(("name", "planted"), [("2p-drawish", "d0"), ("2p-drawish", "d1"), ("3p-skewed", "d1"),
                                               ("4p-rare-change", "d1")])
def test_the_interval_at_the_stop_covers_what_the_docs_say(name, planted):
    """The interval shown on a finished test, computed where the SPRT stopped, is not corrected for the early stop:
    docs/version-tests.md says it covers 91 to 94.5 %, not 95 %, and this keeps it near that."""
    s = simulate(name, planted)
    print(f"\n[{name}, truth {s['truth']}] final-interval coverage {fmt_rate(s['covered'], s['n'])}")
    assert s["covered"] / s["n"] >= AT_THE_STOP, \
        f"final 95% interval covers the true lead {fmt_rate(s['covered'], s['n'])}"


# --- voided deals ---------------------------------------------------------------------------------------------------


def _game(match_id, status, new_seat, base_seat):
    return SimpleNamespace(match=SimpleNamespace(status=status), match_id=match_id, new_seat=new_seat,
                           base_seat=base_seat)


def _seat(rank, forfeited=False):
    return {"rank": rank, "faults": int(forfeited), "forfeited": forfeited}


def test_a_bot_that_crashes_when_losing_is_counted_not_voided():
    """A crash is a forfeit (docs/bots.md: ranked last, never a match failure), so it reaches the tally as a loss;
    only an infrastructure failure (Match FAILED) voids the deal, and then the whole deal, both games."""
    hyp = sprt.Hypotheses(0.0, 0.05)
    test = SimpleNamespace(results=vt._empty_results(hyp), games_played=0, cpu_ms=0, d0=0.0, d1=0.05,
                           alpha=0.05, beta=0.05, llr=0.0)
    done = Match.Status.FINISHED
    # deal 0: new crashed (forfeit, ranked last) in game 1, won game 2; 2 players
    seats = {1: {0: _seat(2, True), 1: _seat(1)}, 2: {0: _seat(2), 1: _seat(1)}}
    vt._tally_deal(test, 0, [_game(1, done, 0, 1), _game(2, done, 1, 0)], seats, {})
    # deal 1: game 4 failed for good (infrastructure): the deal is void, game 3's win of new not counted
    seats |= {3: {0: _seat(1), 1: _seat(2)}}
    vt._tally_deal(test, 1, [_game(3, done, 0, 1), _game(4, Match.Status.FAILED, 1, 0)], seats, {})
    vt._summarize(test)
    assert test.results["deals"] == {"0": 0.0}  # (-1 + 1) / 2: the crash counted as a loss
    assert test.results["void"] == [1]
    assert test.results["score"]["n"] == 1


def test_outcome_independent_voiding_does_not_bias_the_lead():
    """Voids at random (infrastructure) leave the per-deal mean unbiased: the pair is dropped together."""
    values, base = SCENARIOS["3p-skewed"]
    probs = tilted(values, base, 0.05)
    rng = random.Random(5)
    kept = [x for x in rng.choices(values, probs, k=200_000) if rng.random() > 0.1]
    est = sprt.mean_interval(kept)
    assert est.low <= 0.05 <= est.high


# --- move analysis: marks on a move as good as the best -------------------------------------------------------------

from replays import analysis  # noqa: E402


class _FakeState:
    def view(self, seat):
        return {}

    def clone(self):
        return self

    def apply(self, option, advance=True):
        return []


class _FakeBot:
    def needs_view_for(self, decision):
        return False

    def act(self, view, decision):
        return 0


def _marks_on_equal_options(options: int, games: int, trials: int, seed: int, correlated: bool) -> tuple[int, int]:
    """Run replays.analysis.evaluate on a decision whose options are all equally good: each playout's score is
    drawn from one distribution (the future shared across options when `correlated`). Returns (marked, trials)."""
    rng = random.Random(seed)
    marked = 0
    decision = SimpleNamespace(seat=0, kind="k", options=list(range(options)))
    original = analysis.playout
    try:
        for trial in range(trials):
            table: dict = {}

            def playout(state, decision, answered, option, future, _table=table):
                if future not in _table:  # the future's shared luck, and the rival's final score
                    _table[future] = (rng.gauss(0, 5), rng.gauss(32, 5))
                common, rival = _table[future]
                noise = rng.gauss(0, 4) if correlated else rng.gauss(0, math.sqrt(41))
                score = round(30 + (common if correlated else 0) + noise)
                return score, int(score > rival)

            analysis.playout = playout
            plan = analysis.Plan(document={}, seat=0, bot="greedy", games=games, seed=trial)
            played = rng.randrange(options)
            result = analysis.evaluate(plan, _FakeState(), decision, [_FakeBot()], step=1, played=played)
            marked += result["mark"] is not None
    finally:
        analysis.playout = original
    return marked, trials


@pytest.mark.parametrize(("options", "games"), [(2, 8), (5, 8), (16, 8), (5, 3), (16, 20)])
def test_an_equally_good_move_is_rarely_marked(options, games):
    """docs/analysis.md: "A loss counts only beyond two standard errors ... that is what the noise rule is for". A
    move exactly as good as every other option should almost never be marked (2 SE one-sided is ~2.3 %; allow 5 %)."""
    marked, trials = _marks_on_equal_options(options, games, 1000, seed=options * 100 + games, correlated=True)
    print(f"\n[{options} options, G={games}] equal move marked {fmt_rate(marked, trials)}")
    assert marked / trials <= 0.05 + three_se(0.05, trials), \
        f"a move as good as the best is marked {fmt_rate(marked, trials)} ({options} options, G={games})"


# --- resampling must not read the true hidden order -------------------------------------------------------------------


def _midgame(game_name: str, players: int, steps: int, seed: int):
    from engine import load_game
    from engine.bots import make_bot

    game = load_game(game_name)
    state = game.new_state(players, seed)
    bots = [make_bot("greedy", game_name, seed + s) for s in range(players)]
    for _ in range(steps):
        d = state.decision()
        if d is None:
            break
        bot = bots[d.seat]
        state.choose(bot.act(state.view(d.seat), d))
    return game, state


@pytest.mark.parametrize(("game_name", "players"), [("evolution", 3), ("marine", 2)])
def test_resample_ignores_the_true_order_of_the_hidden_cards(game_name, players):
    game, state = _midgame(game_name, players, 30, seed=11)
    data = state.to_dict()
    deck_key = "deck"
    assert deck_key in data and len(data[deck_key]) > 5
    permuted = copy.deepcopy(data)
    rng = random.Random(3)
    if game_name == "marine":  # keep the Asteroid where it is (its depth is public), shuffle the rest
        from engine.marine.data import ASTEROID
        others = [i for i, c in enumerate(permuted[deck_key]) if c != ASTEROID]
        cards = [permuted[deck_key][i] for i in others]
        rng.shuffle(cards)
        for i, c in zip(others, cards, strict=True):
            permuted[deck_key][i] = c
    else:
        rng.shuffle(permuted[deck_key])
    other = game.state_from_dict(permuted)
    for seat in range(players):
        assert other.view(seat) == state.view(seat)
    for seed in range(5):
        a, b = state.resample(seed), other.resample(seed)
        assert a.to_dict() == b.to_dict(), "the re-deal depends on the true (hidden) order"
        for seat in range(players):
            assert a.view(seat) == state.view(seat)
    assert any(state.resample(s).to_dict()[deck_key] != data[deck_key] for s in range(5))


# --- head to head: the bot page's 95 % intervals ----------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 40])
def test_head_to_head_score_share_interval_covers_95_percent(n):
    """The bot page's score share against an opponent: sprt.mean_interval over per-game pairwise points
    (1 / 0.5 / 0), shown for any number of games as a "95 %" interval."""
    rng = random.Random(n)
    p_win, p_tie = 0.7, 0.1
    truth = p_win + p_tie / 2
    covered = zero = 0
    for _ in range(COVERAGE_REPS):
        scores = rng.choices([1.0, 0.5, 0.0], [p_win, p_tie, 1 - p_win - p_tie], k=n)
        est = sprt.mean_interval(scores, within=(0.0, 1.0))  # as replays/head_to_head.py asks
        covered += est.low <= truth <= est.high
        zero += est.low == est.high
    print(f"\n[n={n} games] score-share coverage {fmt_rate(covered, COVERAGE_REPS)}, zero-width {zero}")
    assert covered / COVERAGE_REPS >= MIN_COVERAGE, \
        f"head-to-head 95% score interval covers {fmt_rate(covered, COVERAGE_REPS)} at n={n}"


def test_head_to_head_games_count_matches_not_pairings():
    """Two opponents shown under one label (two private bots) at one table must not count one match as two
    independent games."""
    from replays import head_to_head as h2h
    from tournaments.models import Bot

    bot = SimpleNamespace(pk=1)
    user = SimpleNamespace(is_authenticated=False, is_staff=False, pk=None, id=None)

    def seat(match, number, rank, bot_id, owner):
        return {"match_id": match, "number": number, "rank": rank, "faults": 0, "bot_version_id": bot_id * 10,
                "bot_version__number": 1, "bot_version__bot_id": bot_id, "bot_version__bot__name": f"b{bot_id}",
                "bot_version__bot__visibility": Bot.Visibility.PRIVATE if bot_id != 1 else Bot.Visibility.PUBLIC,
                "bot_version__bot__owner_id": 99}

    by_match = {m: [seat(m, 0, 1, 1, 1), seat(m, 1, 2, 2, 99), seat(m, 2, 3, 3, 99)] for m in range(5)}
    original = h2h.is_shown
    h2h.is_shown = lambda user, visibility, owner: visibility == Bot.Visibility.PUBLIC
    try:
        rows = h2h._opponents(user, bot, by_match)
    finally:
        h2h.is_shown = original
    total = next(r for r in rows if r["opponent"] == h2h.PRIVATE_LABEL and r["seat"] is None)
    print(f"\nrow {total['opponent']!r}: games {total['games']} from 5 matches; win rate {total['win_rate']}")
    assert total["games"] == 5, f"5 matches shown as {total['games']} games; win rate n={total['win_rate'].n}"
