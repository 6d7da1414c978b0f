"""Conformance: every registered game keeps the engine contract (ARCHITECTURE §3), at every player count.

Random legal games (hypothesis picks the seeds) check the invariants: the game ends, every offered option
applies, what was not offered is refused without a trace, states round-trip through dicts and JSON, the action
log replays, seeds determine games, views hide what they must, and scores and ranks add up. `game_name` and
`players` are parametrized by conftest.py over `engine.registry.game_names()`.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import hidden
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples, is_deep

from engine.core import Decision, IllegalAction, InvalidState, Outcome, State
from engine.registry import load_game

Play = Callable[..., Any]  # conftest.play_random
seeds = st.integers(min_value=0, max_value=2**31 - 1)

# Two budgets, and the share of steps the per-step checks probe. Every run (the `ci` profile) plays a few games per
# case and probes a sample of their steps; the nightly profile (tests/hypothesis_profiles.py) plays DEEP times as
# many games and probes every step, or ten times as many of them.
light = settings(max_examples=examples(15))
heavy = settings(max_examples=examples(3))
FAST_RATE = 0.02  # the light tests'
PROBE_RATE = 10 * FAST_RATE if is_deep() else FAST_RATE  # refusals and hidden information: costly per step
STEP_RATE = 1.0 if is_deep() else 5 * FAST_RATE  # every option applies, JSON round trips: cheaper per step
JUNK = 30 if is_deep() else 12  # junk actions tried per game
json_junk = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)


def as_json(value: Any) -> Any:
    """value as it comes back from a JSON file (tuples become lists)."""
    return json.loads(json.dumps(value, allow_nan=False))


def strict(value: Any) -> str:
    """A spelling that tells 1, 1.0 and true apart, and ignores dict order."""
    return json.dumps(value, sort_keys=True)


def is_offered(action: Any, decision: Decision) -> bool:
    return strict(action) in {strict(option) for option in decision.options}


def assert_refused(state: State, action: Any) -> None:
    """apply(action) raises IllegalAction and leaves the state exactly as it was."""
    before, decision = state.to_dict(), state.decision()
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert str(info.value), f"IllegalAction for {action!r} has no message"
    assert state.to_dict() == before, f"refused action {action!r} changed the state"
    assert state.decision() == decision, f"refused action {action!r} changed the decision"


def near_misses(option: Any, depth: int = 0) -> list[Any]:
    """Actions that look like option but are not it: a number off by one, a key missing or added, and so on."""
    misses: list[Any] = [None, [option], {"action": option}]
    if isinstance(option, bool):
        misses += [not option, "true" if option else "false"]
    elif isinstance(option, int):
        misses += [option + 1, option - 1, option + 1000, -option - 1, str(option)]
    elif isinstance(option, str):
        misses += [option + "x", option[:-1], option.swapcase(), ""]
    elif isinstance(option, list):
        misses += [option + [0], option[:-1], list(reversed(option))]
        for i, item in enumerate(option[:3]):
            misses += [option[:i] + [m] + option[i + 1:] for m in near_misses(item, depth + 1)[3:6]]
    elif isinstance(option, dict):
        misses += [{**option, "bogus_key": 1}]
        for key in sorted(option)[:4]:
            misses.append({k: v for k, v in option.items() if k != key})
            if depth < 2:
                misses += [{**option, key: m} for m in near_misses(option[key], depth + 1)[3:7]]
    return misses


def lookalikes(option: Any) -> list[Any]:
    """option with an integer spelled as a float or a bool: JSON-equal in Python, not the offered action."""
    if isinstance(option, bool):
        return [int(option)]
    if isinstance(option, int):
        return [float(option)] + ([bool(option)] if option in (0, 1) else [])
    if isinstance(option, list):
        return [option[:i] + [m] + option[i + 1:] for i, item in enumerate(option) for m in lookalikes(item)]
    if isinstance(option, dict):
        return [{**option, k: m} for k in sorted(option) for m in lookalikes(option[k])]
    return []


def assert_consistent_outcome(outcome: Outcome, players: int) -> None:
    """Ranks follow (score, *tiebreaks), higher first; equal keys share a rank."""
    assert len(outcome.scores) == len(outcome.ranks) == len(outcome.tiebreaks) == players
    keys = [(score, *breaks) for score, breaks in zip(outcome.scores, outcome.tiebreaks, strict=True)]
    for seat, key in enumerate(keys):
        assert outcome.ranks[seat] == 1 + sum(1 for other in keys if other > key), (
            f"seat {seat}: rank {outcome.ranks[seat]} does not follow keys {keys}")
    assert min(outcome.ranks) == 1
    json.dumps(outcome.to_dict())


@light
@given(seed=seeds, choice_seed=seeds)
def test_it_always_ends_with_a_consistent_outcome(play: Play, game_name: str, players: int, seed: int,
                                                   choice_seed: int) -> None:
    def outcome_waits_for_the_end(state: State, step: int) -> None:
        assert state.outcome() is None, f"outcome() before the end, at step {step}"

    run = play(load_game(game_name), players, seed, choice_seed, on_step=outcome_waits_for_the_end)
    outcome = run.state.outcome()
    assert outcome is not None, "decision() is None but outcome() is None too"
    assert_consistent_outcome(outcome, players)
    assert_refused(run.state, None)
    with pytest.raises(IllegalAction):
        run.state.choose(0)


# -- every offered option applies ---------------------------------------------------------------------------------

def every_option_applies(play: Play, game_name: str, players: int, seed: int, choice_seed: int,
                         rate: float) -> None:
    rng = random.Random(choice_seed)

    def try_every_option(state: State, step: int) -> None:
        if rng.random() >= rate:
            return
        decision = state.decision()
        assert decision is not None
        before = state.to_dict()
        for index in range(len(decision.options)):
            twin = state.clone()
            assert twin == state, "clone() differs from the state"
            events = twin.choose(index)
            json.dumps(events)
        assert state.to_dict() == before, f"step {step}: playing on a clone() changed the original"

    play(load_game(game_name), players, seed, choice_seed, on_step=try_every_option)


@heavy
@given(seed=seeds, choice_seed=seeds)
def test_no_offered_option_ever_raises(play: Play, game_name: str, players: int, seed: int,
                                       choice_seed: int) -> None:
    every_option_applies(play, game_name, players, seed, choice_seed, rate=STEP_RATE)


# -- what was not offered is refused ------------------------------------------------------------------------------

def not_offered_is_refused(play: Play, game_name: str, players: int, seed: int, choice_seed: int,
                           junk: list[Any], rate: float) -> None:
    """At a share of the steps: junk JSON and near misses of the offered options are all refused cleanly."""
    rng = random.Random(choice_seed)

    def probe(state: State, step: int) -> None:
        if rng.random() >= rate:
            return
        decision = state.decision()
        assert decision is not None
        candidates = rng.sample(junk, min(3, len(junk)))
        for option in rng.sample(list(decision.options), min(3, len(decision.options))):
            misses = near_misses(option)
            candidates += rng.sample(misses, min(6, len(misses)))
        for action in candidates:
            if not is_offered(action, decision):
                assert_refused(state, action)

    play(load_game(game_name), players, seed, choice_seed, on_step=probe)


@heavy
@given(seed=seeds, choice_seed=seeds, junk=st.lists(json_junk, min_size=1, max_size=JUNK))
def test_actions_not_offered_raise_illegal_action_and_change_nothing(
        play: Play, game_name: str, players: int, seed: int, choice_seed: int, junk: list[Any]) -> None:
    not_offered_is_refused(play, game_name, players, seed, choice_seed, junk, rate=PROBE_RATE)


@light
@given(seed=seeds, choice_seed=seeds)
def test_lookalike_actions_with_float_or_bool_numbers_are_refused(
        play: Play, game_name: str, players: int, seed: int, choice_seed: int) -> None:
    rng = random.Random(choice_seed)

    def probe(state: State, step: int) -> None:
        if rng.random() >= FAST_RATE:
            return
        decision = state.decision()
        assert decision is not None
        for action in [m for option in decision.options[:5] for m in lookalikes(option)][:10]:
            if not is_offered(action, decision):
                assert_refused(state, action)

    play(load_game(game_name), players, seed, choice_seed, on_step=probe)


# -- dicts, JSON, replays and seeds ---------------------------------------------------------------------------------

def assert_same_state(twin: State, state: State, players: int, with_views: bool) -> None:
    assert twin.to_dict() == state.to_dict()
    assert twin == state
    assert as_json((twin.decision() or Decision(-1, "", [])).to_dict()) == as_json(
        (state.decision() or Decision(-1, "", [])).to_dict())
    if with_views:
        for seat in [None, *range(players)]:
            assert twin.view(seat) == state.view(seat), f"view({seat}) differs after the round trip"


def round_trips(play: Play, game_name: str, players: int, seed: int, choice_seed: int, rate: float) -> None:
    """A dict round trip at every step; through JSON text, and with every view compared, at a share of them."""
    game = load_game(game_name)
    rng = random.Random(choice_seed)

    def round_trip(state: State, step: int) -> None:
        data = state.to_dict()
        assert_same_state(game.state_from_dict(data), state, players, with_views=False)
        assert state.to_dict() == data, "from_dict changed the state it was copied from"
        if rng.random() < rate:
            text = json.dumps(data, allow_nan=False)
            assert_same_state(game.state_from_dict(json.loads(text)), state, players, with_views=True)

    run = play(game, players, seed, choice_seed, on_step=round_trip)
    round_trip(run.state, len(run.choices))


@settings(heavy, max_examples=examples(2))
@given(seed=seeds, choice_seed=seeds)
def test_states_round_trip_through_dicts_and_json_at_every_step(play: Play, game_name: str, players: int,
                                                                seed: int, choice_seed: int) -> None:
    round_trips(play, game_name, players, seed, choice_seed, rate=STEP_RATE)


@light
@given(seed=seeds, choice_seed=seeds, cut=st.floats(min_value=0, max_value=1))
def test_a_json_copy_mid_game_plays_on_exactly_like_the_original(
        play: Play, replay_choices: Callable[..., Any], game_name: str, players: int, seed: int,
        choice_seed: int, cut: float) -> None:
    game = load_game(game_name)
    run = play(game, players, seed, choice_seed)
    k = int(cut * len(run.choices))
    head, _ = replay_choices(game, players, seed, run.choices[:k])
    twin = game.state_from_dict(json.loads(json.dumps(head.to_dict())))
    events = [twin.choose(choice) for choice in run.choices[k:]]
    assert twin == run.state
    assert as_json(events) == as_json(run.events[k:])


@light
@given(seed=seeds, choice_seed=seeds)
def test_replaying_the_action_log_reproduces_the_game(play: Play, replay_choices: Callable[..., Any],
                                                      game_name: str, players: int, seed: int,
                                                      choice_seed: int) -> None:
    game = load_game(game_name)
    assert game.new_state(players, seed) == game.new_state(players, seed)
    run = play(game, players, seed, choice_seed)
    state, events = replay_choices(game, players, seed, run.choices)
    assert state == run.state
    assert as_json(events) == as_json(run.events)
    assert state.outcome() == run.state.outcome()


def game_trace(run: Any) -> str:
    return json.dumps([run.choices, run.events, run.state.view(None)], sort_keys=True)


def test_different_seeds_usually_give_different_games(play: Play, game_name: str, players: int) -> None:
    game = load_game(game_name)
    traces = {game_trace(play(game, players, seed, choice_seed=0)) for seed in range(12)}
    assert len(traces) >= 10, f"only {len(traces)} different games from 12 seeds"


def test_the_same_seed_gives_the_same_game(play: Play, game_name: str, players: int) -> None:
    game = load_game(game_name)
    assert game_trace(play(game, players, 99, choice_seed=5)) == game_trace(play(game, players, 99, choice_seed=5))


# -- hidden information -------------------------------------------------------------------------------------------

def views_hide(play: Play, game_name: str, players: int, seed: int, choice_seed: int, rate: float) -> None:
    """At a share of the steps, every seat's view survives every perturbation of what is hidden from it."""
    game = load_game(game_name)
    rng = random.Random(choice_seed)
    changed = []

    def check(state: State, step: int) -> None:
        if rng.random() >= rate:
            return
        data = state.to_dict()
        decision = state.decision()
        for seat in range(players):
            view = state.view(seat)
            assert as_json(view) == view, f"view({seat}) is not plain JSON"
            for author, perturbed in hidden.perturbations(game_name, data, seat, rng):
                changed.append(perturbed != data)
                try:
                    other = game.state_from_dict(perturbed)
                except InvalidState as exc:
                    pytest.fail(f"the perturbation by {author} for seat {seat} at step {step} is not a valid "
                                f"state: {exc}")
                assert other.view(seat) == view, (
                    f"view({seat}) at step {step} shows information hidden from it (perturbed by {author})")
                if decision is not None and decision.seat == seat:
                    assert other.decision() == decision, f"decision of seat {seat} depends on hidden information"
            leaked = [t for t in hidden.hidden_card_tokens(game_name, data, seat) if t in json.dumps(view)]
            assert not leaked, f"view({seat}) at step {step} names hidden cards {leaked}"

    play(game, players, seed, choice_seed, on_step=check)
    assert not changed or any(changed), "the perturbation never changed anything: the check was empty"


@heavy
@given(seed=seeds, choice_seed=seeds)
def test_a_seat_view_ignores_information_hidden_from_it(play: Play, game_name: str, players: int, seed: int,
                                                        choice_seed: int) -> None:
    views_hide(play, game_name, players, seed, choice_seed, rate=PROBE_RATE)


# -- scores and snapshots -------------------------------------------------------------------------------------------

@light
@given(seed=seeds, choice_seed=seeds)
def test_scores_are_the_sum_of_their_parts(play: Play, game_name: str, players: int, seed: int,
                                           choice_seed: int) -> None:
    run = play(load_game(game_name), players, seed, choice_seed)
    outcome = run.state.outcome()
    assert outcome is not None
    parts = hidden.score_parts(game_name, run.state.view(None))
    assert len(parts) == players
    for seat, (breakdown, total) in enumerate(parts):
        assert sum(breakdown.values()) == total, f"seat {seat}: parts {breakdown} do not add up to {total}"
        assert total == outcome.scores[seat], f"seat {seat}: breakdown total {total} != score {outcome.scores[seat]}"


def scramble(value: Any) -> None:
    """Mutate a JSON document in place, as a careless in-process bot might."""
    if isinstance(value, dict):
        for key in list(value):
            scramble(value[key])
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in value:
            scramble(item)
        value.append("scrambled")


@light
@given(seed=seeds, choice_seed=seeds)
def test_views_and_dicts_handed_out_are_snapshots_a_bot_cannot_corrupt(
        play: Play, game_name: str, players: int, seed: int, choice_seed: int) -> None:
    rng = random.Random(choice_seed)
    taken: list[tuple[int, Any, Any]] = []

    def hand_out_and_mutate(state: State, step: int) -> None:
        if rng.random() >= FAST_RATE:
            return
        decision = state.decision()
        assert decision is not None
        for value in (state.view(decision.seat), state.view(None), state.to_dict()):
            taken.append((step, value, copy.deepcopy(value)))
        before = state.to_dict()
        for value in (state.view(decision.seat), state.view(None), state.to_dict()):
            scramble(value)
        assert state.to_dict() == before, f"step {step}: mutating a view or to_dict() changed the state"

    play(load_game(game_name), players, seed, choice_seed, on_step=hand_out_and_mutate)
    for step, value, snapshot in taken:
        assert value == snapshot, f"a view or dict taken at step {step} changed as the game went on"
