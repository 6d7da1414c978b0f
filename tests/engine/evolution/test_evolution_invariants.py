"""Random games keep the board legal: caps, no duplicate traits, no negative food, and every card accounted for."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine.evolution import GAME, EvolutionState, perturb_hidden
from engine.evolution.cards import CARD_STR, FLIGHT_CARD, build_deck

IN_FLIGHT = {"ask_use": 2, "ask_trait_species": 2, "ask_replace": 3}  # steps holding a card taken from a hand


def all_cards(s: EvolutionState) -> Counter[str]:
    d = s.to_dict()
    cards = Counter(d["deck"] + d["reserve"] + d["discard"])
    for seat in d["seats"]:
        cards.update(seat["hand"])
        if seat["food_card"] is not None:
            cards[seat["food_card"]] += 1
        for sp in seat["species"]:
            cards.update(c for c in sp["traits"] + sp["face_down"] if c != CARD_STR[FLIGHT_CARD])
    for step in d["stack"]:
        if step[0] in IN_FLIGHT:
            cards[step[IN_FLIGHT[step[0]]]] += 1
    return cards


def check_board(s: EvolutionState) -> None:
    assert s.wh >= 0 and s.cliff >= 0 and all(b >= 0 for b in s.bags)
    avian = 0
    for seat, row in enumerate(s.rows):
        for sp in row:
            assert sp.owner == seat and s.by_sid[sp.sid] is sp
            assert sp.pop in range(1, 7), f"population {sp.pop} outside 1..6 (ruling 8)"
            assert sp.body in range(1, (3 if sp.avian else 6) + 1), f"body size {sp.body} over its cap (ruling 8)"
            assert 0 <= sp.food <= sp.pop and 0 <= sp.fat <= sp.body
            assert 0 <= sp.upkeep <= (sp.body if sp.avian else 0)
            kinds = [c // 13 for c in sp.cards + sp.hidden]
            assert len(kinds) <= 3 and len(set(kinds)) == len(kinds)
            avian += sp.avian
    assert avian <= 12
    assert len(s.by_sid) == sum(len(r) for r in s.rows)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_it_keeps_every_card_and_every_cap_through_random_games(players: int) -> None:
    for seed in range(2):
        s, rng = GAME.new_state(players, seed), random.Random(seed)
        expected = Counter(CARD_STR[c] for c in build_deck("standard", True))
        while (d := s.decision()) is not None:
            assert all_cards(s) == expected
            check_board(s)
            s.choose(rng.randrange(len(d.options)))
        assert all_cards(s) == expected


def test_it_shows_a_seat_the_same_view_whatever_it_cannot_see() -> None:
    for seed in range(3):
        s, rng = GAME.new_state(4, seed), random.Random(seed)
        while (d := s.decision()) is not None:
            if rng.random() < 0.1:
                seat = rng.randrange(4)
                other = GAME.state_from_dict(perturb_hidden(json.loads(json.dumps(s.to_dict())), seat, rng))
                assert other.view(seat) == s.view(seat)
                if d.seat == seat:
                    assert other.decision() == d
            s.choose(rng.randrange(len(d.options)))


def test_it_round_trips_every_step_of_a_game() -> None:
    s, rng = GAME.new_state(3, 42), random.Random(42)
    while (d := s.decision()) is not None:
        data = s.to_dict()
        assert GAME.state_from_dict(json.loads(json.dumps(data))).to_dict() == data
        assert s.clone().to_dict() == data
        s.choose(rng.randrange(len(d.options)))
