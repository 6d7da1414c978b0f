"""Conformance: every registered game and the toy game keep the engine contract, at every player count.

The checks are engine/testing.py's (a game's author runs the same ones without pytest); here hypothesis picks the
seeds. Random legal games check the invariants: the game ends, every offered option applies, what was not offered
is refused without a trace, bad input gets the documented error, states round-trip through dicts and JSON, the
action log replays, seeds determine games, views hide what they must, scores add up and clones are independent.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import hidden
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples, is_deep

from engine import testing
from engine.core import Game
from engine.registry import game_names, load_game

TOYGAME = Path(__file__).resolve().parents[1] / "workers" / "toygame.py"


def load_toygame() -> ModuleType:
    """tests/workers/toygame.py as a module, not registered: the engine tests never see it in the registry."""
    spec = importlib.util.spec_from_file_location("ludus_tests_toygame", TOYGAME)
    assert spec and spec.loader
    module = sys.modules.get(spec.name) or importlib.util.module_from_spec(spec)
    if spec.name not in sys.modules:
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


TOY: Game = load_toygame().GAME
CASES = [(game.name, n) for game in [*map(load_game, game_names()), TOY]
         for n in range(game.min_players, game.max_players + 1)]
each_case = pytest.mark.parametrize(("game_name", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])

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


def game_of(name: str) -> Game:
    return TOY if name == TOY.name else load_game(name)


@each_case
@light
@given(seed=seeds, choice_seed=seeds)
def test_it_always_ends_with_a_consistent_outcome(game_name: str, players: int, seed: int, choice_seed: int) -> None:
    testing.check_outcome(game_of(game_name), players, seed, choice_seed)


@each_case
@heavy
@given(seed=seeds, choice_seed=seeds)
def test_no_offered_option_ever_raises_and_clones_are_independent(game_name: str, players: int, seed: int,
                                                                  choice_seed: int) -> None:
    testing.check_options_apply(game_of(game_name), players, seed, choice_seed, rate=STEP_RATE)


@each_case
@heavy
@given(seed=seeds, choice_seed=seeds, junk=st.lists(json_junk, min_size=1, max_size=JUNK))
def test_actions_not_offered_raise_illegal_action_and_change_nothing(game_name: str, players: int, seed: int,
                                                                   choice_seed: int, junk: list[Any]) -> None:
    testing.check_refusals(game_of(game_name), players, seed, choice_seed, rate=PROBE_RATE, junk=junk)


@each_case
def test_bad_input_gets_the_documented_error(game_name: str, players: int) -> None:
    testing.check_bad_input(game_of(game_name), players)


@each_case
@settings(heavy, max_examples=examples(2))
@given(seed=seeds, choice_seed=seeds)
def test_states_round_trip_through_dicts_and_json_at_every_step(game_name: str, players: int, seed: int,
                                                                choice_seed: int) -> None:
    testing.check_round_trips(game_of(game_name), players, seed, choice_seed, rate=STEP_RATE)


@each_case
@light
@given(seed=seeds, choice_seed=seeds, cut=st.floats(min_value=0, max_value=1))
def test_a_json_copy_mid_game_plays_on_exactly_like_the_original(game_name: str, players: int, seed: int,
                                                                 choice_seed: int, cut: float) -> None:
    testing.check_json_copy_plays_on(game_of(game_name), players, seed, choice_seed, cut)


@each_case
@light
@given(seed=seeds, choice_seed=seeds)
def test_replaying_the_action_log_reproduces_the_game(game_name: str, players: int, seed: int,
                                                      choice_seed: int) -> None:
    testing.check_replay(game_of(game_name), players, seed, choice_seed)


@each_case
def test_the_same_seed_gives_the_same_game_and_different_seeds_usually_differ(game_name: str, players: int) -> None:
    testing.check_determinism(game_of(game_name), players)


@each_case
@heavy
@given(seed=seeds, choice_seed=seeds)
def test_a_position_stopped_before_its_forced_steps_plays_on_alike(game_name: str, players: int, seed: int,
                                                                   choice_seed: int) -> None:
    testing.check_positions(game_of(game_name), players, seed, choice_seed, rate=STEP_RATE)


# -- hidden information ---------------------------------------------------------------------------------------------

def perturbers(game_name: str) -> list[testing.Perturb]:
    """Each author's perturbation of what a seat cannot see: the game's own hook and tests/engine/hidden.py's."""
    if game_name == TOY.name:
        return [load_toygame().perturb_hidden]

    def by(author: int) -> testing.Perturb:
        return lambda data, seat, rng: hidden.perturbations(game_name, data, seat, rng)[author][1]

    count = len(hidden.perturbations(game_name, load_game(game_name).new_state(2, 0).to_dict(), 0, random.Random()))
    return [by(author) for author in range(count)]


@each_case
@heavy
@given(seed=seeds, choice_seed=seeds)
def test_a_seat_view_ignores_information_hidden_from_it(game_name: str, players: int, seed: int,
                                                        choice_seed: int) -> None:
    game = game_of(game_name)
    for perturb in perturbers(game_name):
        testing.check_hidden(game, players, seed, choice_seed, perturb, rate=PROBE_RATE,
                             hidden_tokens=lambda data, seat: hidden.hidden_card_tokens(game_name, data, seat))


# -- scores, seat-facing calls and snapshots ----------------------------------------------------------------------

@each_case
@heavy
@given(seed=seeds, choice_seed=seeds)
def test_scores_views_scores_and_seat_events_hold_at_every_step(game_name: str, players: int, seed: int,
                                                                choice_seed: int) -> None:
    testing.check_seat_facing(game_of(game_name), players, seed, choice_seed, rate=FAST_RATE)


@pytest.mark.parametrize(("game_name", "players"), [c for c in CASES if c[0] in hidden.SCORE_PARTS])
@light
@given(seed=seeds, choice_seed=seeds)
def test_scores_are_the_sum_of_their_parts(game_name: str, players: int, seed: int, choice_seed: int) -> None:
    run = testing.play_random(load_game(game_name), players, seed, choice_seed)
    outcome = run.state.outcome()
    assert outcome is not None
    parts = hidden.score_parts(game_name, run.state.view(None))
    assert len(parts) == players
    for seat, (breakdown, total) in enumerate(parts):
        assert sum(breakdown.values()) == total, f"seat {seat}: parts {breakdown} do not add up to {total}"
        assert total == outcome.scores[seat], f"seat {seat}: breakdown total {total} != score {outcome.scores[seat]}"


@each_case
@light
@given(seed=seeds, choice_seed=seeds)
def test_views_and_dicts_handed_out_are_snapshots_a_bot_cannot_corrupt(game_name: str, players: int, seed: int,
                                                                      choice_seed: int) -> None:
    testing.check_snapshots(game_of(game_name), players, seed, choice_seed, rate=FAST_RATE)


def test_check_game_passes_the_toy_game_in_one_call_as_a_games_author_runs_it() -> None:
    """engine.testing.check_game, the call docs/architecture.md#adding-a-third-game-in-a-day gives an author."""
    testing.check_game(TOY, seeds=range(3), perturb=load_toygame().perturb_hidden)


def test_the_suite_fails_a_game_that_breaks_the_contract() -> None:
    """A game that accepts a bool for a number (True == 1 in Python) is caught, with the input named."""
    toy = load_toygame()

    class Lenient(type(TOY.new_state(2, 1))):  # type: ignore[misc]
        def apply(self, action: Any, *, advance: bool = True) -> list[Any]:
            return super().apply(int(action) if isinstance(action, bool) else action, advance=advance)

    class LenientGame(type(TOY)):  # type: ignore[misc]
        name = "lenient"

        def new_state(self, num_players: int, seed: int, options: Any = None) -> Any:
            return Lenient(toy.GAME.new_state(num_players, seed, options).to_dict())

    with pytest.raises(AssertionError, match=r"apply\(True\)"):
        testing.check_bad_input(LenientGame(), 2)
