"""Flight: avian species, upkeep, the Cliff, Brood Parasite, Nesting, Camouflage, Good Eyesight and the events."""

from __future__ import annotations

from evo_helpers import avian, do, kind, make, options, seat, sp, species

WAIT = seat(species(pop=6), species(pop=6))
STOP = (species(pop=6), species(pop=6))
FOOD = "Long Neck:9"


def test_it_makes_an_avian_species_pay_upkeep_before_it_feeds() -> None:
    s = make(seat(avian(body=2, pop=2), species(pop=6)), WAIT, wh=9, cliff=0)
    do(s, [0, "watering_hole"])
    assert sp(s, 0, 0)["upkeep"] == 1 and sp(s, 0, 0)["food"] == 0
    do(s, [0, "watering_hole"], [0, "watering_hole"])  # seat 1, then seat 0 again
    assert sp(s, 0, 0)["upkeep"] == 2 and sp(s, 0, 0)["food"] == 0
    do(s, [0, "watering_hole"], [0, "watering_hole"])
    assert sp(s, 0, 0)["upkeep"] == 2 and sp(s, 0, 0)["food"] == 1  # ruling 15: only now the Population


def test_it_counts_an_avian_species_hungry_until_upkeep_and_population_are_fed() -> None:
    s = make(seat(avian(body=2, pop=1, food=0, upkeep=1), species(pop=6)), WAIT, wh=5)
    assert [0, "watering_hole"] in options(s)
    events = do(s, [0, "watering_hole"])
    assert sp(s, 0, 0)["upkeep"] == 2 and sp(s, 0, 0)["food"] == 0
    assert events[0]["event"] == "food"


def test_it_returns_upkeep_to_the_bank_and_does_not_score_it() -> None:
    s = make(seat(avian(body=2, pop=1, food=1, upkeep=2)), seat(species(pop=1, food=1)), wh=0, cliff=0)
    assert s.round == 2
    assert s.bags[0] == 1  # ruling 20: the upkeep went back to the bank
    assert sp(s, 0, 0)["upkeep"] == 0


def test_it_lets_avian_species_feed_from_the_cliff_but_not_land_species() -> None:
    s = make(seat(avian(pop=2), species(pop=2), hand=["Horns:1"]), WAIT, phase="play", wh=0, cliff=3)
    assert s.options_at(["feed", 0, False]) == [[0, "cliff"]]
    s = make(seat(avian(pop=2), species(pop=2)), WAIT, wh=1, cliff=3)
    assert options(s) == [[0, "watering_hole"], [0, "cliff"], [1, "watering_hole"]]


def test_it_takes_foraging_food_from_the_same_source_only() -> None:
    s = make(seat(avian("Foraging", body=1, pop=3), species(pop=6)), WAIT, wh=5, cliff=1)
    do(s, [0, "cliff"])
    assert sp(s, 0, 0)["upkeep"] + sp(s, 0, 0)["food"] == 1  # ruling 15: the Cliff had only one
    assert s.wh == 5 and s.cliff == 0


def test_it_lets_foraging_take_from_the_cliff() -> None:
    s = make(seat(avian("Foraging", body=1, pop=3), species(pop=6)), WAIT, wh=5, cliff=4)
    do(s, [0, "cliff"])
    assert sp(s, 0, 0)["upkeep"] == 1 and sp(s, 0, 0)["food"] == 1 and s.cliff == 2


def test_it_makes_an_avian_cooperation_from_the_cliff_feed_the_land_neighbour_from_the_cliff() -> None:
    s = make(seat(avian("Cooperation", body=1, pop=2), species(pop=2), species(pop=6)), WAIT, wh=5, cliff=4)
    do(s, [0, "cliff"])
    assert sp(s, 0, 1)["food"] == 1 and s.cliff == 2 and s.wh == 5  # seed 000, ruling 15


def test_it_refills_the_cliff_with_one_food_per_player_at_the_reveal() -> None:
    s = make(seat(*STOP, food_card=FOOD), seat(species()), seat(species()), phase="before_reveal", cliff=2)
    assert s.cliff == 2 + 3  # ruling 13, carried over


def test_it_empties_the_cliff_at_the_end_of_feeding_without_carryover() -> None:
    s = make(seat(species(pop=1, food=1)), seat(species(pop=1, food=1)), cliff=2,
             options={"cliff_carryover": False})
    assert s.round == 2 and s.cliff == 0
    s = make(seat(species(pop=1, food=1)), seat(species(pop=1, food=1)), cliff=2)
    assert s.round == 2 and s.cliff == 2


def test_it_caps_avian_body_size_at_three() -> None:
    s = make(seat(avian(body=3), species(body=2), hand=["Horns:1", "Horns:2"]), seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "body")
    assert kind(s) != "grow_species" or options(s) == [1]
    assert sp(s, 0, 1)["body_size"] == 3


def test_it_gives_brood_parasite_between_two_avian_species_two_meat_and_two_population() -> None:
    s = make(seat(avian(pop=1), avian("Brood Parasite", body=3, pop=1), avian(pop=1), *STOP, food_card=FOOD),
             seat(species()), phase="before_reveal")
    b = sp(s, 0, 1)
    assert b["population"] == 3
    assert b["upkeep"] == 2 and b["food"] == 0  # the 2 meat went to upkeep first (ruling 15, 25)


def test_it_triggers_nesting_twice_with_brood_parasite() -> None:
    s = make(seat(avian(pop=1), avian("Brood Parasite", "Nesting", body=3, pop=1), avian(pop=1), *STOP,
                  food_card=FOOD), seat(species()), phase="before_reveal")
    b = sp(s, 0, 1)
    assert b["population"] == 3
    # 2 meat from Brood Parasite, then 3 meat per Population gained, as far as there is room: 3 upkeep + 3 food
    assert b["upkeep"] == 3 and b["food"] == 3


def test_it_triggers_cooperation_once_for_brood_parasite() -> None:
    s = make(seat(avian(pop=1), avian("Brood Parasite", "Cooperation", body=3, pop=1), avian(pop=3), *STOP,
                  food_card=FOOD), seat(species()), phase="before_reveal")
    right = sp(s, 0, 2)
    assert right["upkeep"] + right["food"] == 1


def test_it_does_nothing_for_brood_parasite_on_a_land_species() -> None:
    s = make(seat(avian(pop=1), species("Brood Parasite", pop=1), *STOP, food_card=FOOD), seat(species()),
             phase="before_reveal")
    assert sp(s, 0, 1)["population"] == 1 and sp(s, 0, 1)["food"] == 0


def test_it_lets_nesting_on_a_land_species_take_plant_food_per_population_gained() -> None:
    s = make(seat(species("Nesting", "Foraging", body=2, pop=1), species(pop=6), hand=["Horns:1", "Horns:2"]),
             seat(species()), phase="play", wh=3)
    do(s, ["card", "Horns:1"], "population")  # the only species that can grow: chosen for the player
    assert kind(s) == "nesting_source" and options(s) == ["watering_hole", "bank"]  # ruling 18: owner's choice
    do(s, "watering_hole")
    assert sp(s, 0, 0)["population"] == 2 and sp(s, 0, 0)["food"] == 2 and s.wh == 1  # Foraging too (ruling 26)


def test_it_takes_nesting_food_from_the_bank_when_the_watering_hole_is_empty() -> None:
    s = make(seat(species("Nesting", body=2, pop=1), species(pop=6), hand=["Horns:1", "Horns:2"]),
             seat(species()), phase="play", wh=0)
    do(s, ["card", "Horns:1"], "population")
    assert sp(s, 0, 0)["food"] == 1


def test_it_gives_an_avian_nesting_species_three_meat_per_population_gained() -> None:
    s = make(seat(avian("Nesting", body=1, pop=1), species(pop=6), hand=["Horns:1", "Horns:2"]),
             seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "population")
    assert sp(s, 0, 0)["upkeep"] == 1 and sp(s, 0, 0)["food"] == 2


def test_it_moves_food_to_upkeep_when_an_avian_species_grows() -> None:
    s = make(seat(avian("Nesting", body=1, pop=2, upkeep=1, food=2), species(pop=6), hand=["Horns:1", "Horns:2"]),
             seat(species()), phase="play")
    do(s, ["card", "Horns:1"], "body", 0)
    assert sp(s, 0, 0)["upkeep"] == 2 and sp(s, 0, 0)["food"] == 1  # seed 000, ruling 15


def test_it_triggers_nesting_from_fertile() -> None:
    s = make(seat(species("Fertile", "Nesting", pop=1), *STOP, food_card=FOOD), seat(species()),
             phase="before_reveal", wh=2)
    assert sp(s, 0, 0)["population"] == 2
    assert kind(s) == "nesting_source"  # ruling 24: the Watering Hole has food, so the owner picks the source
    do(s, "watering_hole")
    assert sp(s, 0, 0)["food"] == 1


def test_it_plays_seed_dispersal_before_the_feeding_turn() -> None:
    s = make(seat(avian(pop=2), avian(pop=3), hand=["Seed Dispersal:4", "Horns:1"]), WAIT, wh=1, cliff=0)
    assert ["seed_dispersal", "cliff", "Seed Dispersal:4"] in options(s)
    do(s, ["seed_dispersal", "cliff", "Seed Dispersal:4"])
    assert s.cliff == 5 and s.wh == 1  # ruling 25: all of it on one place
    assert kind(s) == "feed" and s.decision().seat == 0  # type: ignore[union-attr]
    assert "Seed Dispersal:4" in s.to_dict()["discard"]


def test_it_plays_seed_dispersal_onto_the_watering_hole() -> None:
    s = make(seat(avian(pop=2), avian(pop=3), hand=["Seed Dispersal:4", "Horns:1"]), WAIT, wh=0, cliff=0)
    do(s, ["seed_dispersal", "watering_hole", "Seed Dispersal:4"])
    assert s.wh == 5


def test_it_holds_event_cards_in_hand_during_phase_three() -> None:
    s = make(seat(species(), hand=["Dive Bomb:3", "Horns:1"]), seat(species()), phase="play")
    do(s, ["card", "Dive Bomb:3"])
    assert "trait" not in options(s)  # ruling 11


def test_it_dive_bombs_with_a_non_carnivore_for_three_plant_food_and_foraging() -> None:
    s = make(seat(avian("Foraging", body=1, pop=5), species(pop=6), hand=["Dive Bomb:3", "Horns:1"]), WAIT,
             wh=0, cliff=1)
    do(s, ["dive_bomb", "before", "Dive Bomb:3"])
    assert kind(s) == "dive_bomb_source" and options(s) == ["cliff", "bank"]
    do(s, "bank")
    assert sp(s, 0, 0)["upkeep"] == 1 and sp(s, 0, 0)["food"] == 3
    assert kind(s) == "feed" and ["dive_bomb", "before", "Dive Bomb:3"] not in options(s)


def test_it_dive_bombs_with_a_carnivore_and_attacks_with_scavengers_fed() -> None:
    s = make(seat(avian("Carnivore", body=2, pop=3), species(pop=6), hand=["Dive Bomb:3", "Horns:1"]),
             seat(avian(body=1, pop=2), species("Scavenger", pop=2), species(pop=6)), wh=3, cliff=0)
    do(s, ["dive_bomb", "after", "Dive Bomb:3"], [1, "watering_hole"])
    assert kind(s) == "attack_target"
    do(s, [1, 0])
    assert sp(s, 1, 0)["population"] == 1 and sp(s, 1, 1)["food"] == 1
    assert sp(s, 0, 0)["upkeep"] == 1 and sp(s, 0, 1)["food"] == 1


def test_it_keeps_camouflage_from_being_attacked_and_good_eyesight_sees_it() -> None:
    s = make(seat(species("Carnivore", body=3, pop=2), species("Carnivore", "Good Eyesight", body=3, pop=2),
                  species(pop=6)), seat(species("Camouflage", pop=2), *STOP), wh=3)
    first, second = (s.options_at(["attack_target", 0, sp(s, 0, i)["id"]]) for i in (0, 1))
    assert [1, 0] not in first and [1, 0] in second


def test_it_makes_a_species_land_for_good_when_flight_is_replaced() -> None:
    s = make(seat(avian("Horns", "Climbing", body=2, pop=2), species(pop=6), hand=["Fertile:2", "Foraging:3"]),
             seat(species(), hand=["Horns:1"]), phase="play", wh=5)
    do(s, ["card", "Foraging:3"], "trait", 0)
    assert kind(s) == "replace_trait" and options(s) == ["Flight", "Horns", "Climbing"]
    do(s, "Flight")
    assert sp(s, 0, 0)["avian"] is True  # ruling 30: until the reveal
    do(s, "done", "done")
    assert kind(s) == "feed"
    assert sp(s, 0, 0)["avian"] is False and sp(s, 0, 0)["body_size"] == 2 and sp(s, 0, 0)["population"] == 2


def test_it_makes_a_species_land_at_once_when_flight_is_discarded() -> None:
    s = make(seat(avian("Horns", body=2, pop=2), hand=["Fertile:2"]), seat(species()), phase="play")
    do(s, "discard_trait", "Flight")
    assert sp(s, 0, 0)["avian"] is False and sp(s, 0, 0)["traits"] == ["Horns:0"]


def test_it_creates_an_avian_species_for_two_cards_at_either_end() -> None:
    s = make(seat(species(), hand=["Fertile:2", "Foraging:3", "Horns:1"]), seat(species()), phase="play")
    do(s, ["card", "Fertile:2"], "avian")
    assert kind(s) == "avian_card" and options(s) == ["Foraging:3", "Horns:1"]
    do(s, "Horns:1", "left")
    new = sp(s, 0, 0)
    assert new["avian"] and new["traits"] == ["Flight:0"] and new["population"] == 1 and new["body_size"] == 1
    assert s.to_dict()["discard"] == ["Fertile:2", "Horns:1"]  # ruling 6


def test_it_allows_at_most_twelve_avian_species() -> None:
    twelve = [avian() for _ in range(6)]
    s = make(seat(*twelve, hand=["Fertile:2", "Foraging:3"]), seat(*[avian() for _ in range(6)]), phase="play")
    do(s, ["card", "Fertile:2"])
    assert "avian" not in options(s)  # ruling 7
