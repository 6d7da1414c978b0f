"""Phases 1-3: the deal, the food card, and playing cards (rulings 6-11, 24)."""

from __future__ import annotations

from evo_helpers import avian, do, kind, make, options, seat, sp, species

TWO = ("Horns:1", "Fertile:3")


def test_it_deals_three_cards_plus_one_per_species_and_gives_a_species_to_players_without_one() -> None:
    s = make(seat(species(pop=1, food=1), species(pop=1, food=1)), seat(species(pop=1, food=0)), wh=0)
    assert s.round == 2
    assert len(s.hands[0]) == 3 + 2
    assert len(s.rows[1]) == 1 and len(s.hands[1]) == 3 + 1  # its species died; a fresh one came with the deal


def test_it_takes_the_secret_food_card_one_seat_after_another() -> None:
    s = make(seat(species(), hand=["Horns:1", "Fertile:3"]), seat(species(), hand=["Climbing:1", "Climbing:2"]),
             phase="food_card")
    assert kind(s) == "food_card" and s.decision().seat == 0  # type: ignore[union-attr]
    events = do(s, "Fertile:3")
    assert events == [{"event": "food_card_chosen", "seat": 0}]
    assert s.decision().seat == 1 and s.view(1)["seats"][0]["food_card"] == "?"  # type: ignore[union-attr]
    do(s, "Climbing:1")
    assert kind(s) == "play" and s.phase == "play"


def test_it_offers_a_single_food_card_as_a_choice_all_the_same() -> None:
    # whether a seat is asked must not depend on its secret cards
    s = make(seat(species(), hand=["Horns:1"]), seat(species(), hand=["Climbing:1", "Climbing:2"]),
             phase="food_card")
    assert kind(s) == "food_card" and options(s) == ["Horns:1"]


def test_it_plays_a_trait_face_down_and_reveals_it_after_the_last_player() -> None:
    s = make(seat(species(), species(pop=6), hand=list(TWO)), seat(species(), hand=["Climbing:1"]),
             phase="play", wh=5)
    do(s, ["card", "Horns:1"], "trait", 0)
    assert sp(s, 0, 0)["face_down"] == ["Horns:1"] and sp(s, 0, 0)["traits"] == []
    events = do(s, "done", "done")
    revealed = [e for e in events if e["event"] == "traits_revealed"]
    assert revealed == [{"event": "traits_revealed", "revealed": [{"seat": 0, "species": 0, "traits": ["Horns:1"]}]}]
    assert sp(s, 0, 0)["traits"] == ["Horns:1"]  # ruling 10


def test_it_forbids_duplicate_traits_on_a_species() -> None:
    s = make(seat(species("Horns"), species(), hand=["Horns:1", "Horns:2"]), seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "trait")
    assert kind(s) == "trait_species" and options(s) == [1]  # ruling 9


def test_it_replaces_a_trait_on_a_full_species() -> None:
    s = make(seat(species("Horns", "Climbing", "Burrowing"), hand=list(TWO)), seat(species()), phase="play")
    do(s, ["card", "Fertile:3"], "trait", 0)
    assert kind(s) == "replace_trait" and options(s) == ["Horns", "Climbing", "Burrowing"]
    events = do(s, "Climbing")
    assert sp(s, 0, 0)["traits"] == ["Horns:0", "Burrowing:0"] and sp(s, 0, 0)["face_down"] == ["Fertile:3"]
    assert "Climbing:0" in s.to_dict()["discard"]
    assert {"event": "trait_replaced", "seat": 0, "species": 0, "discarded": "Climbing:0"} in events


def test_it_loses_stored_fat_when_fat_tissue_is_replaced() -> None:
    s = make(seat(species("Fat Tissue", "Horns", "Climbing", body=3, fat=2), hand=list(TWO)), seat(species()),
             phase="play")
    do(s, ["card", "Fertile:3"], "trait", 0, "Fat Tissue")
    assert sp(s, 0, 0)["fat"] == 0


def test_it_creates_a_new_land_species_at_either_end_of_the_row() -> None:
    s = make(seat(species(body=3), hand=[*TWO, "Climbing:2"]), seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "species")
    assert kind(s) == "species_side" and options(s) == ["left", "right"]
    do(s, "left")
    assert [x["body_size"] for x in s.to_dict()["seats"][0]["species"]] == [1, 3]
    do(s, ["card", "Fertile:3"], "species", "right")
    assert [x["body_size"] for x in s.to_dict()["seats"][0]["species"]] == [1, 3, 1]


def test_it_grows_body_size_and_population_up_to_six() -> None:
    s = make(seat(species(body=5, pop=6), species(body=6, pop=1), hand=list(TWO)), seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "body")
    assert sp(s, 0, 0)["body_size"] == 6  # the only one below 6: chosen for the player (ruling 8)
    do(s, ["card", "Fertile:3"])
    assert "body" not in options(s) and "population" in options(s)


def test_it_lets_a_player_discard_a_trait_without_replacing_it() -> None:
    s = make(seat(species("Horns", "Climbing"), hand=["Fertile:3"]), seat(species()), phase="play")
    do(s, "discard_trait", "Climbing")
    assert sp(s, 0, 0)["traits"] == ["Horns:0"]


def test_it_triggers_nesting_when_a_card_buys_population() -> None:
    s = make(seat(avian("Nesting", pop=1), species(pop=6), hand=list(TWO)), seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "population")
    assert sp(s, 0, 0)["population"] == 2 and sp(s, 0, 0)["upkeep"] + sp(s, 0, 0)["food"] == 3  # ruling 24


def test_it_lets_event_cards_serve_as_food_or_for_growth() -> None:
    s = make(seat(species(), hand=["Seed Dispersal:7", "Horns:1"]), seat(species()), phase="food_card")
    do(s, "Seed Dispersal:7")
    assert s.food_cards[0] is not None  # ruling 3
    s = make(seat(species(), hand=["Dive Bomb:3", "Horns:1"]), seat(species()), phase="play")
    do(s, ["card", "Dive Bomb:3"])
    assert options(s) == ["species", "avian", "body", "population"]
