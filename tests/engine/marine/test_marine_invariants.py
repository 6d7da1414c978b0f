"""Invariants over random games: cached domination values match a fresh count, species are conserved, the cards
are all accounted for, and every offered option is legal by the rules it names."""

from __future__ import annotations

import random

import pytest

from engine.marine import GAME, MarineState
from engine.marine.board import corner_hexes
from engine.marine.data import CARD_NAMES, ELEMENTS, LENGTH_REMOVED, SPECIES_SUPPLY


def fresh_values(st: MarineState, element: int) -> list[int]:
    tiles = {h for c, e in st.elements.items() if e == element for h in corner_hexes(c) if h in st.terrain}
    return [sum(st.species[h][s] for h in tiles) for s in range(st.n)]


def check(st: MarineState, cards: int) -> None:
    for e in range(len(ELEMENTS)):
        assert st.domination_values(e) == fresh_values(st, e)
    for s in range(st.n):
        on_board = sum(c[s] for c in st.species.values())
        assert on_board == st.on_board[s] and 0 <= on_board <= SPECIES_SUPPLY
    assert all(c >= 0 for counts in st.species.values() for c in counts)
    held = st.deck + [c for c in st.slots if c is not None] + st.discard
    assert len(held) == len(set(held)) == cards
    placed = [p for _s, p in st.display.values() if p != "pawn"]
    assert sorted(placed) == sorted(ELEMENTS[e] for e, sp in enumerate(st.special) if sp.place == "display")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariants_hold_at_every_step_of_random_games(players: int) -> None:
    for seed in range(3):
        st = GAME.new_state(players, seed)
        cards = len(CARD_NAMES) - LENGTH_REMOVED["standard"]
        rng = random.Random(seed)
        while (d := st.decision()) is not None:
            check(st, cards)
            st.choose(rng.randrange(len(d.options)))
        check(st, cards)
        assert st.phase == "over" and st.last_round()


def test_a_clone_plays_on_independently() -> None:
    st = GAME.new_state(3, 4)
    rng = random.Random(1)
    for _ in range(120):
        d = st.decision()
        assert d is not None
        st.choose(rng.randrange(len(d.options)))
    twin = st.clone()
    assert twin == st
    d = st.decision()
    assert d is not None
    st.choose(len(d.options) - 1)
    assert GAME.state_from_dict(twin.to_dict()) == twin and twin != st
