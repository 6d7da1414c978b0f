"""State.options_at: the legal actions of any decision step in any position, through the contract."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine.core import InvalidState
from engine.registry import load_game

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
CASES = [("evolution", 2, 1), ("evolution", 4, 2), ("marine", 2, 1), ("marine", 3, 2)]


@pytest.mark.parametrize(("game_name", "players", "seed"), CASES)
def test_the_pending_steps_options_are_the_decisions(game_name: str, players: int, seed: int) -> None:
    """At every decision of a random game, options_at of the stack's top step (by its name, and by its kind) is
    the decision's options, and asking changes nothing."""
    s, rng = load_game(game_name).new_state(players, seed), random.Random(seed)
    kinds = set()
    while (d := s.decision()) is not None:
        data = s.to_dict()
        top = data["stack"][-1]
        assert s.options_at(top) == list(d.options)
        assert s.options_at([d.kind, *top[1:]]) == list(d.options)
        assert s.to_dict() == data
        kinds.add(d.kind)
        s.choose(rng.randrange(len(d.options)))
    assert len(kinds) >= 5


def test_it_answers_for_a_decision_that_is_not_pending() -> None:
    """In the play phase: which targets could seat 0's carnivore attack, and how could seat 1 feed?"""
    game = load_game("evolution")
    s = game.state_from_dict({
        "seed": 1, "phase": "play", "watering_hole": 2, "deck": ["Horns:3"] * 5,
        "seats": [{"hand": ["Climbing:1"], "species": [{"id": 0, "traits": ["Carnivore:3"], "body_size": 3}]},
                  {"hand": ["Horns:2"], "species": [{"id": 1}, {"id": 2, "traits": ["Climbing:2"], "population": 2},
                                                   {"id": 3, "body_size": 4}]}]})
    d = s.decision()
    assert d is not None and d.kind == "play"
    assert s.options_at(["attack_target", 0, 0]) == [[1, 0]]  # Climbing stops it, body 4 is too big
    assert s.options_at(["ask_target", 0, 0]) == [[1, 0]]
    assert s.options_at(["feed", 1, False]) == [[0, "watering_hole"], [1, "watering_hole"], [2, "watering_hole"]]
    assert s.decision() == d


def test_it_answers_for_marine_decisions_off_turn() -> None:
    game = load_game("marine")
    s = game.state_from_dict({
        "seed": 3, "animals": ["Reptiles", "Cephalopods"],
        "tiles": [{"hex": [0, 0], "terrain": "Coral Reef", "species": [3, 1]},
                  {"hex": [1, 0], "terrain": "Land", "species": [1, 2]}],
        "elements": [[0, 0, "N", "Sun"], [0, 0, "S", "Sponges"], [1, 0, "N", "Worms"]],
        "markers": ["Land", "Land", "Kelp Forest", "Coral Reef", "Open Ocean"],
        "slots": ["Symbiosis", "Camouflage", "Abundance", "Brood", "Gyre"], "deck": ["Asteroid"]})
    s.advance()
    assert s.options_at(["dominate", 0]) == ["Sponges", "Sun"]
    assert s.options_at(["dominate", 1]) == ["Worms"]
    assert s.options_at(["evolution_tile", 1, 1]) == [[1, 0]]  # space 1's marker is Land


@pytest.mark.parametrize(("game_name", "step", "message"), [
    ("evolution", "attack_target", "must be a known step"),
    ("evolution", [], "must be a known step"),
    ("evolution", ["no_such_kind", 0], "must be a known step"),
    ("evolution", ["feed_turn", 0], "is not a decision step"),
    ("evolution", ["attack_target", 0], "takes 2 argument"),
    ("evolution", ["attack_target", 7, 0], "bad seat argument 7"),
    ("evolution", ["attack_target", 0, True], "bad sid argument True"),
    ("marine", ["dominate", "0"], "bad seat argument '0'"),
    ("marine", ["evolution_tile", 0, 9], "bad space_number argument 9"),
])
def test_a_step_that_is_not_a_decision_of_the_game_is_refused_naming_it(game_name: str, step: object,
                                                                         message: str) -> None:
    s = load_game(game_name).new_state(2, 1)
    data = s.to_dict()
    with pytest.raises(InvalidState, match=re.escape(message)):
        s.options_at(step)
    assert s.to_dict() == data


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_every_decision_kind_and_its_step_is_documented(game_name: str) -> None:
    """The rules page's decision table names every kind, with every step of that kind, and no other."""
    from engine.steps import StepState

    state = load_game(game_name).new_state(2, 1)
    assert isinstance(state, StepState)
    steps = state.steps
    text = (DOCS / f"{game_name}.md").read_text(encoding="utf-8")
    table = text[text.index("## Decisions a bot sees"):]
    documented = {}
    for kind, cell in re.findall(r"^\| `([a-z_]+)` \|.*\| ((?:`\[\"ask_[a-z_]+\"[^`]*\]`(?: or )?)+) \|$", table, re.M):
        documented[kind] = set(re.findall(r'\["(ask_[a-z_]+)"', cell))
    expected = {}
    for step_type, ask in steps.asks.items():
        expected.setdefault(ask.kind, set()).add(steps.names[step_type])
    assert documented == expected


def test_the_rare_evolution_decisions_too() -> None:
    """The kinds random games seldom reach: paying for a defence, Horns, and a land Nesting's source."""
    game = load_game("evolution")
    s = game.state_from_dict({
        "seed": 1, "phase": "feeding", "watering_hole": 1, "deck": ["Horns:3"] * 5,
        "seats": [{"hand": ["Climbing:1", "Horns:2", "Climbing:1"],
                   "species": [{"id": 0, "traits": ["Carnivore:3", "Intelligence:2"], "body_size": 3}]},
                  {"species": [{"id": 1, "traits": ["Climbing:2", "Horns:1", "Nesting:3"]}]}]})
    assert s.options_at(["negate_card", 0, "Climbing"]) == ["Climbing:1", "Horns:2"]
    assert s.options_at(["negate_horns", 0]) == ["keep", "Climbing:1", "Horns:2"]
    assert s.options_at(["nesting_source", 1, 1]) == ["watering_hole", "bank"]
    s = game.state_from_dict({"seed": 1, "phase": "feeding", "seats": [{"species": [{}]}, {"species": [{}]}]})
    assert s.options_at(["nesting_source", 1, 1]) == ["bank"]  # nothing on the Watering Hole
