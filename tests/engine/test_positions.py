"""Exact positions: a state dict loads as exactly that position, forced steps included; `advance()` takes them and
returns their events; `apply(action, advance=False)` stops right after the action's answer."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis_profiles import is_probed

from engine.core import IllegalAction, InvalidState
from engine.registry import load_game

# The example: seat 0's hungry carnivore has one target, so its feeding turn, the attack and the extinction
# are forced (docs/rules/evolution.md shows the same position).
FORCED_ATTACK: dict[str, Any] = {
    "game": "evolution", "seed": 7, "round": 2, "phase": "feeding", "first_player": 0, "turn": 0,
    "deck": ["Horns:3", "Climbing:1", "Burrowing:2", "Long Neck:4", "Cooperation:3", "Foraging:2", "Fat Tissue:4",
             "Scavenger:2"],
    "discard": ["Ambush:1"],
    "seats": [{"hand": ["Symbiosis:3"],
               "species": [{"id": 0, "traits": ["Carnivore:3"], "body_size": 3, "population": 2}]},
              {"hand": ["Intelligence:5"], "species": [{"id": 1}]}],
}


def test_a_feeding_position_with_one_forced_attack_loads_as_that_position() -> None:
    s = load_game("evolution").state_from_dict(FORCED_ATTACK)
    data = s.to_dict()
    assert (data["round"], data["phase"], data["stack"]) == (2, "feeding", [["feed_turn", 0]])
    assert [len(seat["species"]) for seat in data["seats"]] == [1, 1]
    assert not s.settled and s.decision() is None and not s.is_over() and s.outcome() is None
    assert load_game("evolution").state_from_dict(data).to_dict() == data


def test_advance_returns_the_attack_and_the_extinction() -> None:
    s = load_game("evolution").state_from_dict(FORCED_ATTACK)
    events = s.advance()
    assert events[:2] == [
        {"event": "attack", "seat": 0, "species": 0, "target": [1, 0], "negated": [], "horns": False},
        {"event": "extinct", "seat": 1, "species": 0, "traits": 0},
    ]
    assert [e["event"] for e in events[2:]] == ["food", "pass", "pass", "feeding_over", "round", "dealt", "dealt"]
    d = s.decision()
    assert s.settled and d is not None and (d.kind, d.seat, s.to_dict()["round"]) == ("food_card", 1, 3)
    assert s.advance() == [] and s.decision() == d  # a settled state has nothing to take


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_a_state_with_forced_steps_pending_takes_no_action(game_name: str) -> None:
    game = load_game(game_name)
    s = game.new_state(2, 3)
    d = s.decision()
    assert d is not None
    s.apply(d.options[0], advance=False)
    while s.settled:  # find an answer followed by forced steps
        d = s.decision()
        assert d is not None, "the game ended before any forced step"
        s.apply(d.options[-1], advance=False)
    before = s.to_dict()
    with pytest.raises(IllegalAction, match="forced steps are pending; advance"):
        s.apply("pass")
    with pytest.raises(IllegalAction, match="forced steps are pending; advance"):
        s.choose(0)
    assert s.to_dict() == before and not s.is_over()


def walk(game_name: str, players: int, seed: int) -> list[tuple[Any, Any]]:
    """(state, action) pairs along a random game: every step, or every third under the check profile."""
    game = load_game(game_name)
    s, rng, out = game.new_state(players, seed), random.Random(seed), []
    step = 0
    while (d := s.decision()) is not None:
        action = d.options[rng.randrange(len(d.options))]
        if is_probed(step):
            out.append((s.clone(), action))
        s.apply(action)
        step += 1
    return out


@pytest.mark.parametrize(("game_name", "players", "seed"),
                         [("evolution", 2, 1), ("evolution", 5, 2), ("marine", 2, 1), ("marine", 4, 2)])
def test_stopping_after_the_answer_then_advancing_is_applying(game_name: str, players: int, seed: int) -> None:
    """apply(a) is apply(a, advance=False) then advance(): the same events in order and the same state; the stopped
    state round-trips through its dict exactly, unsettled, and plays on the same from the dict."""
    game = load_game(game_name)
    stopped = 0
    for s, action in walk(game_name, players, seed):
        whole, part = s.clone(), s.clone()
        events = whole.apply(action)
        answer = part.apply(action, advance=False)
        data = part.to_dict()
        loaded = game.state_from_dict(json.loads(json.dumps(data)))
        assert loaded.to_dict() == data and loaded.settled == part.settled
        stopped += not part.settled
        assert answer + part.advance() == events
        assert part.to_dict() == whole.to_dict()
        assert loaded.advance() == events[len(answer):] and loaded.to_dict() == whole.to_dict()
    assert stopped > 0, "no action was followed by a forced step"


def test_forced_steps_that_leave_a_running_game_without_a_step_are_refused_on_load() -> None:
    """The forced steps are not taken on load, but a stack that cannot go on fails there (on a copy), not later."""
    data = load_game("marine").new_state(2, 1).to_dict()
    data["stack"] = [["act", 0, "evolution_1"]]  # the action, and then no placement turn is left
    with pytest.raises(InvalidState, match="the game runs .* but no step is left"):
        load_game("marine").state_from_dict(data)
