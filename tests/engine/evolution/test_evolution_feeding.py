"""Phase 4: the triggers before the reveal, the reveal, feeding turns, food traits and the end of feeding."""

from __future__ import annotations

from evo_helpers import do, kind, make, options, pass_all, row, seat, sp, species

# Two hungry species and a food card: the game then stops at seat 0's first feeding choice after the reveal.
STOP = (species(pop=6), species(pop=6))
FOOD = "Long Neck:9"
# A second seat with two hungry species: after seat 0 acts, the game waits for it.
WAIT = seat(species(pop=6), species(pop=6))


def test_it_reveals_the_food_cards_onto_the_watering_hole_and_the_cliff_after_the_triggers() -> None:
    # ruling 12, 13: triggers first, then the food cards; the Cliff gets one food per player
    s = make(seat(species("Long Neck"), *STOP, food_card="Carnivore:3"), seat(species(), food_card="Ambush:-1"),
             phase="before_reveal", wh=1, cliff=1)
    assert sp(s, 0, 0)["food"] == 1  # Long Neck took from the bank before the reveal
    assert s.wh == 1 + 3 - 1
    assert s.cliff == 1 + 2
    assert s.to_dict()["discard"] == ["Carnivore:3", "Ambush:-1"]
    assert kind(s) == "feed" and s.phase == "feeding"


def test_it_never_takes_the_watering_hole_below_zero() -> None:
    s = make(seat(*STOP, food_card="Ambush:-3"), seat(species(), food_card="Ambush:-2"),
             phase="before_reveal", wh=2, cliff=0)
    assert s.wh == 0  # ruling 13
    assert s.cliff == 2 and kind(s) is None or s.round == 2


def test_it_makes_each_player_feed_one_hungry_species_per_turn_in_turn_order() -> None:
    s = make(seat(species(pop=2), species(pop=1)), seat(species(pop=1)), seat(species(pop=6), species(pop=6)),
             wh=5, first=1, turn=1)
    # seat 1 has one species with one way to eat: that is taken for it, then seat 2 chooses, then seat 0
    assert sp(s, 1, 0)["food"] == 1
    assert kind(s) == "feed" and s.decision().seat == 2  # type: ignore[union-attr]
    do(s, [0, "watering_hole"])
    assert options(s) == [[0, "watering_hole"], [1, "watering_hole"]]
    do(s, [1, "watering_hole"])
    assert sp(s, 0, 1)["food"] == 1
    assert s.wh == 2


def test_it_drops_population_to_food_eaten_and_bags_the_food_at_the_end_of_feeding() -> None:
    s = make(seat(species(pop=3, food=2), species(pop=2, food=0), bag=1), seat(species(pop=1, food=1)), wh=0,
             deck=["Fertile:2"] * 5)
    # nobody can eat: feeding ends at once (ruling 14, 20)
    assert s.round == 2
    assert s.bags[0] == 1 + 2 and s.bags[1] == 1
    r = s.rows[0]
    assert [x.pop for x in r] == [2]  # the unfed species went extinct
    assert s.to_dict()["watering_hole"] == 0


def test_it_keeps_watering_hole_food_for_the_next_round() -> None:
    s = make(seat(species(pop=1, food=1)), seat(species(pop=1, food=1)), wh=4)
    assert s.round == 2 and s.wh >= 4  # ruling 20: leftover food stays


def test_it_passes_the_first_player_marker_to_the_next_seat() -> None:
    s = make(seat(species(pop=1, food=1)), seat(species(pop=1, food=1)), seat(species(pop=1, food=1)), first=2)
    assert s.round == 2 and s.first == 0  # ruling 5


def test_it_lets_foraging_take_two_plant_food() -> None:
    s = make(seat(species("Foraging", pop=3), species()), WAIT, wh=5)
    do(s, [0, "watering_hole"])
    assert sp(s, 0, 0)["food"] == 2 and s.wh == 3


def test_it_takes_as_much_as_fits_and_leaves_the_rest() -> None:
    s = make(seat(species("Foraging", pop=1), species()), WAIT, wh=5)
    do(s, [0, "watering_hole"])
    assert sp(s, 0, 0)["food"] == 1 and s.wh == 4  # ruling 25


def test_it_chains_cooperation_to_the_right_from_the_same_source() -> None:
    s = make(seat(species("Cooperation", pop=2), species("Cooperation", pop=2), species(pop=2), species()),
             WAIT, wh=10)
    do(s, [0, "watering_hole"])
    assert [x["food"] for x in row(s, 0)] == [1, 1, 1, 0]
    assert s.wh == 7


def test_it_stops_cooperation_at_a_carnivore_for_plant_food() -> None:
    s = make(seat(species("Cooperation", pop=2), species("Carnivore", pop=2), species()),
             WAIT, wh=10)
    do(s, [0, "watering_hole"])
    assert [x["food"] for x in row(s, 0)] == [1, 0, 0]


def test_it_does_not_add_foraging_to_food_received_through_cooperation() -> None:
    s = make(seat(species("Cooperation", pop=3), species("Foraging", pop=3), species()),
             WAIT, wh=10)
    do(s, [0, "watering_hole"])
    assert [x["food"] for x in row(s, 0)] == [1, 1, 0]  # ruling 26


def test_it_lets_long_neck_take_from_the_bank_before_the_reveal_with_foraging() -> None:
    s = make(seat(species("Long Neck", "Foraging", pop=3), *STOP, food_card=FOOD), seat(species()),
             phase="before_reveal", wh=0)
    assert sp(s, 0, 0)["food"] == 2  # ruling 12, 26


def test_it_grows_fertile_only_when_the_watering_hole_has_food() -> None:
    s = make(seat(species("Fertile", pop=2), *STOP, food_card=FOOD), seat(species("Fertile", pop=2)),
             phase="before_reveal", wh=0)
    assert sp(s, 0, 0)["population"] == 2
    s = make(seat(species("Fertile", pop=2), *STOP, food_card=FOOD), seat(species()), phase="before_reveal", wh=1)
    assert sp(s, 0, 0)["population"] == 3  # ruling 12


def test_it_lets_good_eyesight_take_two_from_the_watering_hole_before_the_reveal() -> None:
    s = make(seat(species("Good Eyesight", pop=3), *STOP, food_card=FOOD), seat(species()), phase="before_reveal",
             wh=5)
    assert sp(s, 0, 0)["food"] == 2
    s = make(seat(species("Good Eyesight", pop=3), *STOP, food_card=FOOD), seat(species()), phase="before_reveal",
             wh=1)
    assert sp(s, 0, 0)["food"] == 1  # ruling 25: up to 2, as much as there is


def test_it_does_not_trigger_good_eyesight_on_a_carnivore_before_the_reveal() -> None:
    s = make(seat(species("Good Eyesight", "Carnivore", pop=3), *STOP, food_card=FOOD), seat(species()),
             phase="before_reveal", wh=5)
    assert sp(s, 0, 0)["food"] == 0


def test_it_resolves_triggers_in_turn_order_so_good_eyesight_can_run_dry() -> None:
    # ruling 19: the first player resolves first; seat 1's Good Eyesight finds the Watering Hole empty
    s = make(seat(species("Good Eyesight", pop=3), *STOP, food_card=FOOD), seat(species("Good Eyesight", pop=3)),
             phase="before_reveal", wh=2, first=0)
    assert sp(s, 0, 0)["food"] == 2 and sp(s, 1, 0)["food"] == 0


def test_it_lets_a_player_order_their_own_triggers() -> None:
    s = make(seat(species("Fertile", pop=2), species("Good Eyesight", pop=3), *STOP, food_card=FOOD),
             seat(species()), phase="before_reveal", wh=1)
    assert kind(s) == "trigger_order"
    assert options(s) == [[0, "Fertile"], [1, "Good Eyesight"]]
    do(s, [1, "Good Eyesight"])  # empties the Watering Hole first: Fertile then does nothing
    assert sp(s, 0, 1)["food"] == 1 and sp(s, 0, 0)["population"] == 2


def test_it_moves_stored_fat_onto_the_species_before_the_reveal_without_cooperation() -> None:
    s = make(seat(species("Fat Tissue", "Cooperation", body=4, pop=2, fat=3), species(pop=2), *STOP,
                  food_card=FOOD), seat(species()), phase="before_reveal", wh=0)
    assert sp(s, 0, 0)["food"] == 2 and sp(s, 0, 0)["fat"] == 1
    assert sp(s, 0, 1)["food"] == 0  # ruling 29: moving fat is no take


def test_it_stores_fat_only_by_the_owners_choice() -> None:
    s = make(seat(species("Fat Tissue", "Foraging", body=3, pop=1), species(pop=1)), WAIT, wh=5)
    do(s, [0, "watering_hole"])  # Foraging offers a second food beyond the Population: store it or not
    assert kind(s) == "store_fat" and options(s) == [0, 1]
    do(s, 1)
    assert sp(s, 0, 0)["food"] == 1 and sp(s, 0, 0)["fat"] == 1 and s.wh == 3


def test_it_lets_a_player_decline_to_store_fat() -> None:
    s = make(seat(species("Fat Tissue", "Foraging", body=3, pop=1), species(pop=1)), WAIT, wh=5)
    do(s, [0, "watering_hole"], 0)
    assert sp(s, 0, 0)["fat"] == 0 and s.wh == 4


def test_it_counts_storing_fat_as_feeding_but_lets_a_player_pass_instead() -> None:
    # ruling 29: only fat could be stored: the player may pass
    s = make(seat(species("Fat Tissue", body=3, pop=1, food=1), species("Fat Tissue", body=2, pop=1, food=1)),
             WAIT, wh=5)
    assert options(s) == [[0, "watering_hole"], [1, "watering_hole"], "pass"]
    do(s, [0, "watering_hole"])
    assert sp(s, 0, 0)["fat"] == 1


def test_it_forbids_passing_while_a_hungry_species_can_eat() -> None:
    s = make(seat(species("Fat Tissue", body=3, pop=1, food=1), species(pop=2)), seat(species(pop=1, food=1)),
             wh=5)
    assert "pass" not in options(s)
    assert [0, "watering_hole"] in options(s)  # storing fat still counts as the feeding (ruling 29)


def test_it_lets_intelligence_feed_a_non_carnivore_from_the_bank_for_a_card() -> None:
    s = make(seat(species("Intelligence", pop=3), species(pop=1), hand=["Horns:1", "Climbing:2"]), WAIT, wh=0,
             cliff=0)
    # the only way to feed is Intelligence, which costs a card: the player may use it or pass
    assert kind(s) == "feed" and options(s) == [[0, "intelligence"], "pass"]
    do(s, [0, "intelligence"])
    assert kind(s) == "intelligence_card" and options(s) == ["Climbing:2", "Horns:1"]
    do(s, "Climbing:2")
    assert sp(s, 0, 0)["food"] == 2 and "Climbing:2" in s.to_dict()["discard"]


def test_it_ends_feeding_when_nobody_can_eat() -> None:
    s = make(seat(species(pop=2, food=1)), seat(species(pop=2, food=1)), wh=1, deck=["Fertile:2"] * 10)
    # seat 0 eats the last food; seat 1 cannot eat: the round ends
    assert s.round == 2
    assert s.bags == [2, 1]


def test_it_plays_on_to_the_next_round() -> None:
    s = make(seat(species(pop=2)), seat(species(pop=2)), wh=1)
    pass_all(s)
    assert s.round == 2 and s.phase == "food_card"


def test_it_never_forces_a_player_to_pay_a_card_to_feed() -> None:
    s = make(seat(species("Carnivore", "Intelligence", body=3, pop=2), hand=["Horns:1"]),
             seat(species("Climbing", pop=2)), phase="play", wh=0)
    assert s.options_at(["feed", 0, False]) == [[0, "attack"], "pass"]  # the only target needs a negation card
