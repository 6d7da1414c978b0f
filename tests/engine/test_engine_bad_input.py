"""Bad input to the engine: options, player counts, state dicts and choices.

Each case is a row of a declarative table, built over every registered game from its options schema and a
sample state. Every bad input gets the right exception type, a message that names the bad input, and leaves
nothing corrupted behind (the input dict and any existing state are untouched).
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import hidden
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from engine.core import IllegalAction, InvalidOptions, InvalidState, OptionSpec, State
from engine.registry import game_names, load_game

NOT_JSON = {1, 2}  # a set: no JSON spelling


def valid_values(spec: OptionSpec) -> list[Any]:
    if spec.type == "int":
        return [spec.default] + [v for v in (spec.minimum, spec.maximum) if v is not None]
    if spec.type == "bool":
        return [True, False]
    if spec.type == "choice":
        return list(spec.choices)
    return [spec.default]


def invalid_values(spec: OptionSpec) -> list[Any]:
    if spec.type == "int":
        bounds = ([spec.minimum - 1] if spec.minimum is not None else []) + (
            [spec.maximum + 1] if spec.maximum is not None else [])
        return bounds + ["3", True, 2.5, None]
    if spec.type == "bool":
        return [1, "true", None]
    if spec.type == "choice":
        return ["__no_such_choice__", None, 12345]
    return [NOT_JSON]


def option_rows(valid: bool) -> list[Any]:
    rows = []
    for name in game_names():
        for key, spec in sorted(load_game(name).options_schema.items()):
            for value in valid_values(spec) if valid else invalid_values(spec):
                rows.append(pytest.param(name, {key: value}, key, id=f"{name}-{key}={value!r}"))
        if not valid:
            rows.append(pytest.param(name, {"no_such_option": 1}, "no_such_option", id=f"{name}-unknown-key"))
    return rows


@pytest.mark.parametrize(("game_name", "options", "key"), option_rows(valid=True))
def test_valid_options_are_accepted_with_defaults_filled_in(game_name: str, options: dict[str, Any],
                                                            key: str) -> None:
    game = load_game(game_name)
    full = game.validate_options(options)
    assert full[key] == options[key]
    assert set(full) == set(game.options_schema)
    state = game.new_state(game.min_players, 1, options)
    assert state.decision() is not None


@pytest.mark.parametrize(("game_name", "options", "key"), option_rows(valid=False))
def test_invalid_options_raise_invalid_options_naming_the_option(game_name: str, options: dict[str, Any],
                                                                 key: str) -> None:
    game = load_game(game_name)
    before = copy.deepcopy(options) if options.get(key) is not NOT_JSON else None
    with pytest.raises(InvalidOptions, match=key):
        game.validate_options(options)
    with pytest.raises(InvalidOptions, match=key):
        game.new_state(game.min_players, 1, options)
    if before is not None:
        assert options == before


@pytest.mark.parametrize("options", [[], "reserve_size=3", 5], ids=["list", "string", "int"])
def test_options_that_are_not_an_object_raise_invalid_options(game_name: str, options: Any) -> None:
    with pytest.raises(InvalidOptions, match="options must be an object"):
        load_game(game_name).validate_options(options)


def player_rows() -> list[Any]:
    rows = []
    for name in game_names():
        game = load_game(name)
        for bad in [game.min_players - 1, game.max_players + 1, 0, -1, True, "3", 2.5, None]:
            rows.append(pytest.param(name, bad, id=f"{name}-players={bad!r}"))
    return rows


@pytest.mark.parametrize(("game_name", "players"), player_rows())
def test_a_bad_player_count_raises_invalid_options_naming_it(game_name: str, players: Any) -> None:
    with pytest.raises(InvalidOptions, match=repr(players).replace(".", r"\.")):
        load_game(game_name).new_state(players, 1)


def sample_state(game_name: str, steps: int = 40, seed: int = 1) -> State:
    """A state some way into a random game: every part of it is filled in."""
    game = load_game(game_name)
    state = game.new_state(max(game.min_players, min(4, game.max_players)), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        decision = state.decision()
        if decision is None:
            break
        state.choose(rng.randrange(len(decision.options)))
    return state


def wrong_type(value: Any) -> Any:
    """A value of another JSON type than value."""
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, (int, float)):
        return "seven"
    if isinstance(value, str):
        return 12345
    if isinstance(value, list):
        return {"not": "a list"}
    if isinstance(value, dict):
        return ["not", "an", "object"]
    return {"was": "null"}


def state_rows(kind: str) -> list[Any]:
    rows = []
    for name in game_names():
        data = sample_state(name).to_dict()
        for key in sorted(data):
            if kind == "missing":
                bad = {k: v for k, v in data.items() if k != key}
            elif data[key] is None:
                continue
            else:
                bad = {**data, key: wrong_type(data[key])}
            rows.append(pytest.param(name, bad, key, id=f"{name}-{kind}-{key}"))
    return rows


def assert_refused_state(game_name: str, bad: Any, named: str) -> None:
    before = copy.deepcopy(bad)
    with pytest.raises(InvalidState) as info:
        load_game(game_name).state_from_dict(bad)
    assert named in str(info.value), f"the message {str(info.value)!r} does not name {named!r}"
    assert bad == before, "state_from_dict changed its input"


@pytest.mark.parametrize("bad", [None, [], "state", 42, [1, 2]], ids=["null", "list", "string", "int", "pair"])
def test_a_state_that_is_not_an_object_raises_invalid_state(game_name: str, bad: Any) -> None:
    with pytest.raises(InvalidState):
        load_game(game_name).state_from_dict(bad)


@pytest.mark.parametrize(("game_name", "bad", "key"), state_rows("missing"))
def test_a_state_missing_a_key_is_refused_naming_it_or_gets_a_working_default(game_name: str, bad: Any,
                                                                              key: str) -> None:
    """A required key must be named in an InvalidState; an optional one must default to a state that plays on."""
    before = copy.deepcopy(bad)
    try:
        state = load_game(game_name).state_from_dict(bad)
    except InvalidState as exc:
        assert key in str(exc), f"the message {str(exc)!r} does not name {key!r}"
        return
    finally:
        assert bad == before, "state_from_dict changed its input"
    assert load_game(game_name).state_from_dict(state.to_dict()) == state
    state.advance()
    rng = random.Random(0)
    for _ in range(50_000):
        decision = state.decision()
        if decision is None:
            break
        state.choose(rng.randrange(len(decision.options)))
    assert state.outcome() is not None


def test_a_state_without_its_seed_is_refused(game_name: str) -> None:
    """The seed fixes every later draw: a default would silently give another game."""
    data = {k: v for k, v in sample_state(game_name).to_dict().items() if k != "seed"}
    assert_refused_state(game_name, data, "seed")


@pytest.mark.parametrize("seat", [-1, "max", 1.0, True, "0"])
def test_a_view_of_a_seat_the_game_does_not_have_raises_naming_it(game_name: str, seat: Any) -> None:
    state = sample_state(game_name)
    seat = state.view(None)["num_players"] if seat == "max" else seat  # one past the last seat
    with pytest.raises(ValueError, match=re.escape(f"seat {seat!r}")):
        state.view(seat)


def test_a_state_of_another_game_is_refused(game_name: str) -> None:
    data = sample_state(game_name).to_dict()
    assert_refused_state(game_name, {**data, "game": "no_such_game"}, "game")


@pytest.mark.parametrize(("game_name", "bad", "key"), state_rows("wrong_type"))
def test_a_state_with_a_wrong_type_raises_invalid_state_naming_it(game_name: str, bad: Any, key: str) -> None:
    assert_refused_state(game_name, bad, key)


def negative_rows() -> list[Any]:
    rows = []
    for name in game_names():
        for path in hidden.negative_count_paths(name):
            rows.append(pytest.param(name, path, id=f"{name}-{'.'.join(map(str, path))}=-1"))
    return rows


@pytest.mark.parametrize(("game_name", "path"), negative_rows())
def test_a_negative_count_raises_invalid_state_naming_it(game_name: str, path: tuple[Any, ...]) -> None:
    data = sample_state(game_name).to_dict()
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = -1
    assert_refused_state(game_name, data, str(path[-1]))


def test_every_game_lists_negative_count_cases(game_name: str) -> None:
    assert hidden.negative_count_paths(game_name), f"add negative-count paths for {game_name} to tests/engine/hidden.py"


def leaf_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document (containers included, the root excluded)."""
    paths: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(value, dict):
        for key in sorted(value):
            paths += leaf_paths(value[key], prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            paths += leaf_paths(item, prefix + (i,))
    return paths


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), steps=st.integers(0, 200))
def test_a_wrong_type_anywhere_in_a_state_raises_invalid_state_not_a_crash(game_name: str, data: st.DataObject,
                                                                         steps: int) -> None:
    state = sample_state(game_name, steps=steps)
    doc = state.to_dict()
    path = data.draw(st.sampled_from(leaf_paths(doc)), label="path")
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = wrong_type(target[path[-1]])
    with pytest.raises(InvalidState):
        load_game(game_name).state_from_dict(json.loads(json.dumps(doc)))


def choice_rows() -> list[Any]:
    return [pytest.param(name, bad, id=f"{name}-choice={bad!r}") for name in game_names()
            for bad in (-1, "len", "len+5", True, "0", None, 1.0)]


@pytest.mark.parametrize(("game_name", "choice"), choice_rows())
def test_an_out_of_range_choice_raises_illegal_action_and_changes_nothing(game_name: str, choice: Any) -> None:
    state = sample_state(game_name, steps=10)
    decision = state.decision()
    assert decision is not None
    if choice in ("len", "len+5"):
        choice = len(decision.options) + (5 if choice == "len+5" else 0)
    before = state.to_dict()
    with pytest.raises(IllegalAction, match=repr(choice).replace(".", r"\.")):
        state.choose(choice)
    assert state.to_dict() == before
    assert state.decision() == decision
