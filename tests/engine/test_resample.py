"""State.resample: a copy with everything no seat has seen dealt again from a new seed. Every seat sees the same
position (its view and the decision), only the hidden keys of the state dict change, and the same seed always gives
the same state."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from engine.core import InvalidOptions, State
from engine.registry import load_game

HIDDEN_KEYS = {"evolution": {"deck", "reserve", "seed"}, "marine": {"deck", "tile_stacks", "seed"}}
CASES = [("evolution", 2), ("evolution", 4), ("evolution", 6), ("marine", 2), ("marine", 3), ("marine", 4)]


def positions(game_name: str, players: int, seed: int, every: float = 0.05) -> Iterator[State]:
    """Positions along a random game (about `every` of its decisions, the first and the last)."""
    game = load_game(game_name)
    s, rng = game.new_state(players, seed), random.Random(seed)
    yield s
    while (d := s.decision()) is not None:
        s.choose(rng.randrange(len(d.options)))
        if rng.random() < every or s.is_over():
            yield s


def unseen(game_name: str, data: dict[str, Any]) -> Counter[str]:
    """Everything the resample may deal again, as a multiset."""
    if game_name == "evolution":
        return Counter(data["deck"] + data["reserve"])
    return Counter(data["deck"] + [t for stack in data["tile_stacks"] for t in stack[1:]])


@pytest.mark.parametrize(("game_name", "players"), CASES)
def test_every_seat_sees_the_same_position_after_a_resample(game_name: str, players: int) -> None:
    changed = 0
    for s in positions(game_name, players, seed=players):
        before = s.to_dict()
        for seed in (1, 2):
            other = s.resample(seed)
            assert s.to_dict() == before, "resample changed the state it was called on"
            for seat in range(players):
                assert other.view(seat) == s.view(seat)
            assert other.decision() == s.decision()
            data = other.to_dict()
            assert {k for k in data if data[k] != before[k]} <= HIDDEN_KEYS[game_name]
            assert data["seed"] == seed
            assert unseen(game_name, data) == unseen(game_name, before)
            changed += unseen_order(game_name, data) != unseen_order(game_name, before)
    assert changed > 0, "no resample dealt anything again"


def unseen_order(game_name: str, data: dict[str, Any]) -> list[Any]:
    if game_name == "evolution":
        return [data["deck"], data["reserve"]]
    return [data["deck"], data["tile_stacks"]]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_marine_keeps_what_every_seat_knows_of_the_hidden_piles(players: int) -> None:
    """Marine: the tile stacks keep their top tiles and sizes; the Asteroid stays among the bottom five cards."""
    asteroid_places = set()
    for s in positions("marine", players, seed=10 + players, every=0.2):
        before = s.to_dict()
        for seed in range(20):
            data = s.resample(seed).to_dict()
            assert [(t[:1], len(t)) for t in data["tile_stacks"]] == [(t[:1], len(t)) for t in before["tile_stacks"]]
            if "Asteroid" in data["deck"]:
                from_bottom = len(data["deck"]) - 1 - data["deck"].index("Asteroid")
                assert from_bottom < 5
                asteroid_places.add(from_bottom)
    assert len(asteroid_places) > 1, "the Asteroid never moved"


@pytest.mark.parametrize(("game_name", "players"), CASES)
def test_the_same_seed_gives_the_same_state_byte_for_byte(game_name: str, players: int) -> None:
    for s in positions(game_name, players, seed=20 + players, every=0.1):
        a, b = s.resample(7), s.clone().resample(7)
        assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())
        assert s.resample(8).to_dict() != a.to_dict() or not unseen_order(game_name, a.to_dict())[0]


@pytest.mark.parametrize(("game_name", "players"), CASES)
def test_a_resampled_state_loads_and_plays_on_to_the_end(game_name: str, players: int) -> None:
    game = load_game(game_name)
    rng = random.Random(players)
    for s in positions(game_name, players, seed=30 + players, every=0.05):
        other = s.resample(rng.randrange(1 << 30))
        data = other.to_dict()
        assert game.state_from_dict(json.loads(json.dumps(data))).to_dict() == data
        while (d := other.decision()) is not None:
            other.choose(rng.randrange(len(d.options)))
        assert other.outcome() is not None


def test_the_future_differs_after_a_resample() -> None:
    """The deck dealt again: the cards dealt in round 2 differ (Evolution)."""
    game = load_game("evolution")
    s = game.new_state(3, 5)
    hands = set()
    for seed in range(5):
        other = s.resample(seed)
        rng = random.Random(0)
        while other.to_dict()["round"] < 2 and (d := other.decision()) is not None:
            other.choose(rng.randrange(len(d.options)))
        hands.add(json.dumps([seat["hand"] for seat in other.to_dict()["seats"]]))
    assert len(hands) > 1


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
@pytest.mark.parametrize("seed", [None, "1", 1.0, True])
def test_a_seed_that_is_not_an_integer_is_refused(game_name: str, seed: Any) -> None:
    s = load_game(game_name).new_state(2, 1)
    with pytest.raises(InvalidOptions, match="seed must be an integer"):
        s.resample(seed)


def reorder_hidden(game_name: str, data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The same position with what no seat has seen in another order (the Asteroid moved within the bottom five)."""
    data = json.loads(json.dumps(data))
    if game_name == "evolution":
        unseen = data["deck"] + data["reserve"]
        rng.shuffle(unseen)
        data["deck"], data["reserve"] = unseen[:len(data["deck"])], unseen[len(data["deck"]):]
        return data
    deck = [c for c in data["deck"] if c != "Asteroid"]
    rng.shuffle(deck)
    if len(deck) < len(data["deck"]):
        deck.insert(len(deck) - rng.randrange(min(5, len(data["deck"]))), "Asteroid")
    data["deck"] = deck
    below = [t for stack in data["tile_stacks"] for t in stack[1:]]
    rng.shuffle(below)
    for stack in data["tile_stacks"]:
        size = max(len(stack) - 1, 0)
        stack[1:], below = below[:size], below[size:]
    return data


@pytest.mark.parametrize(("game_name", "players"), CASES)
def test_the_new_deal_tells_nothing_of_the_old_one(game_name: str, players: int) -> None:
    """Attack: knowing the resample seed and the re-dealt piles (a branch shows them once it ends), work back to the
    parent's hidden order. The re-deal starts from a fixed order, so two positions that differ only in what no seat
    has seen resample to the same state."""
    game, rng = load_game(game_name), random.Random(players)
    differed = 0
    for s in positions(game_name, players, seed=40 + players, every=0.1):
        other = game.state_from_dict(reorder_hidden(game_name, s.to_dict(), rng))
        differed += other.to_dict() != s.to_dict()
        for seed in (3, 4):
            assert other.resample(seed).to_dict() == s.resample(seed).to_dict()
    assert differed > 0
