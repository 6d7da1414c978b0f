"""Views built from a live state's caches (Marine's per-tile thriving and domination values, Evolution's card
views) are exactly the views of a fresh state read back from its dict, at every step of random games, for every
seat and the omniscient view; and a view shares nothing with the state or the next view, so a caller that writes
over one cannot change what the next one says. `game_name` and `players` are parametrized by conftest.py. The check
profile (make check) probes every third step of each game (tests/hypothesis_profiles.py is_probed); make test all."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples, is_probed

from engine.core import Game, State
from engine.evolution.state import EvolutionState
from engine.registry import load_game

seeds = st.integers(min_value=0, max_value=2**31 - 1)


def strict(value: Any) -> str:
    """A spelling that tells 1, 1.0 and true apart, and lists from tuples."""
    return json.dumps(value, sort_keys=True)


def scribble(value: Any) -> None:
    """Write over every list and dict inside a view, as a careless bot might."""
    if isinstance(value, list):
        for item in value:
            scribble(item)
        value.append("scribbled")
    elif isinstance(value, dict):
        for item in list(value.values()):
            scribble(item)
        value["scribbled"] = True


def views_equal_fresh_ones(game: Game, players: int) -> Callable[[State, int], None]:
    """An on_step check: the live state's views, after the one a match builds, equal a fresh state's."""

    def same_as_fresh(state: State, step: int) -> None:
        decision = state.decision()
        assert decision is not None
        state.view(decision.seat)  # the view a match builds at each decision: it warms the caches
        if not is_probed(step):
            return
        fresh = game.state_from_dict(state.to_dict())
        for seat in [None, *range(players)]:
            assert strict(state.view(seat)) == strict(fresh.view(seat)), f"step {step}, seat {seat}"

    return same_as_fresh


@settings(max_examples=examples(2))
@given(seed=seeds, choice_seed=seeds)
def test_every_view_equals_a_fresh_states_view_at_every_step(play: Any, game_name: str, players: int, seed: int,
                                                             choice_seed: int) -> None:
    game = load_game(game_name)
    run = play(game, players, seed, choice_seed, on_step=views_equal_fresh_ones(game, players))
    final = game.state_from_dict(run.state.to_dict())
    assert strict(run.state.view(None)) == strict(final.view(None))


@pytest.mark.parametrize("seed", [3, 11])
def test_evolution_views_stay_fresh_through_reshuffles_of_the_discard_pile(play: Any, seed: int) -> None:
    """Without Flight an empty deck takes the discard pile back (ruling 22): the cached discard names start over."""
    game, options = load_game("evolution"), {"expansions": "none", "deck": "short"}
    seen: list[int] = []

    def watch_shuffles(state: State, step: int) -> None:
        views_equal_fresh_ones(game, 3)(state, step)
        assert isinstance(state, EvolutionState)
        seen.append(state.shuffles)

    play(game, 3, seed, options=options, on_step=watch_shuffles)
    assert max(seen) > 1, "the game never reshuffled its discard pile"


def test_a_clone_playing_on_never_changes_the_originals_views(play: Any, game_name: str) -> None:
    """At every step a twin takes another choice than the original and builds its views; the original's next
    views still equal a fresh state's (a twin starts with the original's caches)."""
    game = load_game(game_name)
    players = game.min_players + 1
    same_as_fresh = views_equal_fresh_ones(game, players)

    def play_a_twin(state: State, step: int) -> None:
        same_as_fresh(state, step)
        if not is_probed(step):
            return
        twin = state.clone()
        decision = twin.decision()
        assert decision is not None
        twin.choose(step % len(decision.options))
        twin.view(None)

    play(game, players, 5, on_step=play_a_twin)


def test_a_view_written_over_changes_neither_the_state_nor_the_next_view(play: Any, game_name: str) -> None:
    game = load_game(game_name)
    players = game.min_players + 1

    def write_over(state: State, step: int) -> None:
        if not is_probed(step):
            return
        before = state.to_dict()
        expected = [strict(state.view(seat)) for seat in [None, *range(players)]]
        for seat in [None, *range(players)]:
            scribble(state.view(seat))
        assert state.to_dict() == before, f"step {step}: writing over a view changed the state"
        assert [strict(state.view(seat)) for seat in [None, *range(players)]] == expected, f"step {step}"

    play(game, players, 7, on_step=write_over)
