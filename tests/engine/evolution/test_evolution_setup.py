"""Options, setup, state dicts, errors, determinism and views."""

from __future__ import annotations

import json
import random

import pytest
from evo_helpers import do, kind, make, options, seat, species

from engine.core import IllegalAction, InvalidOptions, InvalidState
from engine.evolution import GAME, render
from engine.registry import load_game


def test_it_is_registered_as_evolution() -> None:
    assert load_game("evolution") is GAME
    assert GAME.min_players == 2 and GAME.max_players == 6  # ruling 1


def test_it_has_the_documented_option_defaults() -> None:
    assert GAME.default_options() == {"expansions": "flight", "deck": "standard", "reserve_size": 40,
                                      "hard_shell_bonus": 4, "cliff_carryover": True}


@pytest.mark.parametrize(("options", "words"), [
    ({"bogus": 1}, "'bogus'"),
    ({"hard_shell_bonus": 11}, "'hard_shell_bonus'"),
    ({"reserve_size": -1}, "'reserve_size'"),
    ({"reserve_size": 177}, "'reserve_size'"),
    ({"expansions": "marine"}, "'expansions'"),
    ({"deck": "promo"}, "'deck'"),
    ({"cliff_carryover": "yes"}, "'cliff_carryover'"),
])
def test_it_rejects_bad_options_naming_the_option(options: dict, words: str) -> None:
    with pytest.raises(InvalidOptions, match=words):
        GAME.new_state(3, 1, options)


@pytest.mark.parametrize("players", [1, 7, 0])
def test_it_rejects_a_bad_player_count(players: int) -> None:
    with pytest.raises(InvalidOptions, match="2-6 players"):
        GAME.new_state(players, 1)


def test_it_starts_with_one_species_each_and_an_empty_watering_hole() -> None:
    s = GAME.new_state(4, 1)
    assert s.wh == 0 and s.cliff == 0  # ruling 1
    assert all(len(r) == 1 and r[0].pop == 1 and r[0].body == 1 for r in s.rows)
    assert kind(s) == "food_card" and s.decision().seat == s.first  # type: ignore[union-attr]


def test_it_picks_the_first_player_from_the_seed() -> None:
    firsts = {GAME.new_state(4, seed).first for seed in range(30)}
    assert firsts == {0, 1, 2, 3}  # ruling 5


def test_it_gives_the_same_game_for_the_same_seed_and_actions() -> None:
    def trace(seed: int) -> str:
        s, rng, out = GAME.new_state(3, seed), random.Random(7), []
        while (d := s.decision()) is not None:
            out.append(s.choose(rng.randrange(len(d.options))))
        return json.dumps([out, s.to_dict()])

    assert trace(5) == trace(5)
    assert trace(5) != trace(6)


def test_it_round_trips_a_state_through_json_and_plays_on_identically() -> None:
    s, rng = GAME.new_state(4, 11), random.Random(11)
    for _ in range(150):
        s.choose(rng.randrange(len(s.decision().options)))  # type: ignore[union-attr]
    copy = GAME.state_from_dict(json.loads(json.dumps(s.to_dict())))
    clone = s.clone()
    assert copy == s and clone == s
    for _ in range(100):
        if s.decision() is None:
            break
        i = rng.randrange(len(s.decision().options))  # type: ignore[union-attr]
        assert s.choose(i) == copy.choose(i) == clone.choose(i)
    assert copy == s == clone


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.pop("seats"), "missing key 'seats'"),
    (lambda d: d.update(round="one"), "round"),
    (lambda d: d.update(watering_hole=-1), "watering_hole"),
    (lambda d: d.update(phase="lunch"), "phase"),
    (lambda d: d["seats"][0].update(hand=["Wings:3"]), "unknown card 'Wings:3'"),
    (lambda d: d["seats"][0].update(hand=["Flight:0"]), "beside the deck"),
    (lambda d: d["seats"][0]["species"][0].update(population=7), "population"),
    (lambda d: d["seats"][0]["species"][0].update(traits=["Horns:1", "Horns:2"]), "duplicates"),
    (lambda d: d["seats"][0]["species"][0].update(traits=["Dive Bomb:3"]), "event"),
    (lambda d: d["seats"][0]["species"][0].update(traits=["Flight:0"]), "Flight"),
    (lambda d: d["seats"][0]["species"][0].update(avian=True, body_size=4), "body_size"),
    (lambda d: d["seats"][0]["species"][0].update(food=3), "food"),
    (lambda d: d.update(stack=[["fly_away", 0]]), "stack"),
    (lambda d: d.update(stack=[["ask_feed", 9, False]]), "stack"),
    (lambda d: d.update(options={"hard_shell_bonus": 99}), "hard_shell_bonus"),
    (lambda d: d.update(seats=d["seats"][:1]), "2-6 seats"),
])
def test_it_rejects_a_malformed_state_dict_with_a_clear_message(change: object, words: str) -> None:
    data = GAME.new_state(2, 1).to_dict()
    change(data)  # type: ignore[operator]
    with pytest.raises(InvalidState, match=words):
        GAME.state_from_dict(data)


def test_it_refuses_an_out_of_range_choice_and_changes_nothing() -> None:
    s = GAME.new_state(3, 2)
    before, decision = s.to_dict(), s.decision()
    with pytest.raises(IllegalAction, match="out of range"):
        s.choose(len(decision.options))  # type: ignore[union-attr]
    with pytest.raises(IllegalAction, match="food_card"):
        s.apply("Wings:3")
    with pytest.raises(IllegalAction):
        s.apply(True)
    assert s.to_dict() == before and s.decision() == decision


def test_it_accepts_an_action_after_a_json_round_trip() -> None:
    s = make(seat(species(pop=3), species(pop=3)), seat(species(pop=6), species(pop=6)), wh=5)
    action = json.loads(json.dumps(options(s)[0]))
    do(s, action)
    assert s.decision().seat == 1  # type: ignore[union-attr]


def test_it_hides_other_hands_face_down_traits_food_cards_bags_and_the_deck() -> None:
    s = make(seat(species(face_down=("Horns:2",)), hand=["Fertile:3"], bag=4, food_card="Carnivore:5"),
             seat(species(), hand=["Climbing:1", "Climbing:2"], bag=2), phase="play", turn=1)
    view = s.view(1)
    me, other = view["seats"][1], view["seats"][0]
    assert me["hand"] == [{"card": "Climbing:1", "name": "Climbing", "food": 1},
                          {"card": "Climbing:2", "name": "Climbing", "food": 2}]
    assert other["hand"] is None and other["hand_count"] == 1
    assert other["species"][0]["face_down"] == ["?"]
    assert other["food_card"] == "?" and other["bag"] is None and me["bag"] == 2
    assert view["deck_count"] == 30 and "deck" not in view
    text = json.dumps(view)
    assert "Horns:2" not in text and "Carnivore:5" not in text and "Fertile:3" not in text
    own = s.view(0)["seats"][0]
    assert own["species"][0]["face_down"] == ["Horns:2"] and own["food_card"] == "Carnivore:5"
    assert view["decision"] == {"seat": 1, "kind": "play", "prompt": s.decision().prompt,  # type: ignore[union-attr]
                                "options": ["done", ["card", "Climbing:1"], ["card", "Climbing:2"]]}
    assert "options" not in s.view(0)["decision"]  # type: ignore[operator]


def test_it_renders_a_view_as_text() -> None:
    s = make(seat(species("Horns", pop=2, food=1)), seat(species(), hand=["Climbing:1", "Horns:2"]),
             phase="play", turn=1)
    text = render(s.view(1))
    assert "Watering Hole" in text and "Horns" in text and "hand: Climbing:1, Horns:2" in text
    assert "Seat 1 (you)" in text


def test_it_returns_public_events_only() -> None:
    s = make(seat(species(), hand=["Horns:1", "Fertile:3"]), seat(species(), hand=["Climbing:1"]), phase="play")
    events = do(s, ["card", "Horns:1"], "trait", 0)
    assert events == [{"event": "trait_played_face_down", "seat": 0, "species": 0}]


def test_it_answers_junk_anywhere_in_a_state_dict_with_invalid_state_only() -> None:
    junk = [None, True, -1, 7, 10**9, 1.5, "x", "Horns:1", [], [1], {}, {"a": 1}, [[1]], ["ask_feed", 0, False]]
    s, rng = GAME.new_state(3, 1), random.Random(1)
    for _ in range(60):
        s.choose(rng.randrange(len(s.decision().options)))  # type: ignore[union-attr]
    base = s.to_dict()

    def paths(value: object, prefix: tuple = ()) -> list[tuple]:
        out = [prefix]
        if isinstance(value, dict):
            for k, v in value.items():
                out += paths(v, (*prefix, k))
        elif isinstance(value, list):
            for i, v in enumerate(value[:3]):
                out += paths(v, (*prefix, i))
        return out

    every = paths(base)[1:]
    for _ in range(300):
        data = json.loads(json.dumps(base))
        *head, last = rng.choice(every)
        place = data
        for key in head:
            place = place[key]
        place[last] = json.loads(json.dumps(rng.choice(junk)))
        try:
            GAME.state_from_dict(data)
        except InvalidState:
            pass
