"""Views built from a live state's caches (Marine's per-tile thriving and domination values, Evolution's card
views) are exactly the views of a fresh state read back from its dict, at every step of random games, for every
seat and the omniscient view; and a view shares nothing with the state or the next view, so a caller that writes
over one cannot change what the next one says. `game_name` and `players` are parametrized by conftest.py."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from engine.core import State
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


@settings(max_examples=examples(2))
@given(seed=seeds, choice_seed=seeds)
def test_every_view_equals_a_fresh_states_view_at_every_step(play: Any, game_name: str, players: int, seed: int,
                                                             choice_seed: int) -> None:
    game = load_game(game_name)

    def same_as_fresh(state: State, step: int) -> None:
        decision = state.decision()
        assert decision is not None
        state.view(decision.seat)  # the view a match builds at each decision: it warms the caches
        fresh = game.state_from_dict(state.to_dict())
        for seat in [None, *range(players)]:
            assert strict(state.view(seat)) == strict(fresh.view(seat)), f"step {step}, seat {seat}"

    run = play(game, players, seed, choice_seed, on_step=same_as_fresh)
    final = game.state_from_dict(run.state.to_dict())
    assert strict(run.state.view(None)) == strict(final.view(None))


def test_a_view_written_over_changes_neither_the_state_nor_the_next_view(play: Any, game_name: str) -> None:
    game = load_game(game_name)
    players = game.min_players + 1

    def write_over(state: State, step: int) -> None:
        before = state.to_dict()
        expected = [strict(state.view(seat)) for seat in [None, *range(players)]]
        for seat in [None, *range(players)]:
            scribble(state.view(seat))
        assert state.to_dict() == before, f"step {step}: writing over a view changed the state"
        assert [strict(state.view(seat)) for seat in [None, *range(players)]] == expected, f"step {step}"

    play(game, players, 7, on_step=write_over)
