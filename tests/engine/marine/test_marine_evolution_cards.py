"""The seed's Evolution card play: who may take a card, which slots, effects in order, the slide, the refill, events
when dealt, and the Asteroid."""

from __future__ import annotations

from typing import Any

from marine_helpers import kind, make, options, species_at, vp

SUN_ON_CENTRE = [[0, 0, "N", "Sun"]]  # the Reptiles match Sun: seat 0 (Reptiles) thrives on (0, 0)
SLOTS = ["Abundance", "Shell Growth", "Brood", "Regeneration", "Symbiosis"]


def evolution(space: int = 3, species: list[int] | None = None, elements: list[list[Any]] | None = None,
              kelp: list[int] | None = None, **kw: Any) -> Any:
    """Seat 0 (Reptiles) takes Evolution space `space`; the lone Land tile (0, 0) is scored."""
    kw.setdefault("slots", SLOTS)
    kw.setdefault("deck", ["Nursery", "Gyre"])
    return make([(0, 0, "Land", species or [2, 1]), (1, 0, "Kelp Forest", kelp or [0, 1])],
                elements=SUN_ON_CENTRE if elements is None else elements, markers=["Land"] * 5,
                stack=[["ask_evolution_tile", 0, space]], **kw)


def test_a_card_is_taken_only_with_a_thriving_species_on_the_scored_tile() -> None:
    st = evolution(elements=[])
    assert vp(st)[0] == 8
    assert kind(st) == "place" and st.slots[0] is not None and not st.discard


def test_a_species_thrives_when_its_animal_matches_an_element_touching_the_tile() -> None:
    # Fishes match Plankton and Algae, not Sun: seat 1's species on (0, 0) do not thrive
    st = evolution(animals=("Reptiles", "Fishes"))
    assert st.is_thriving(0, (0, 0)) and not st.is_thriving(1, (0, 0))


def test_with_a_thriving_species_the_player_must_take_a_card() -> None:
    st = evolution(space=3)
    assert kind(st) == "evolution_card"
    assert "done" not in options(st)


def test_space_1_offers_only_slot_1() -> None:
    st = evolution(space=1)  # one option: taken for the player
    assert st.view(None)["discard"] == ["Abundance"] and vp(st, "cards")[0] == 3


def test_space_n_offers_the_slots_at_or_below_n() -> None:
    for space in (2, 3, 4):
        assert options(evolution(space=space)) == list(range(1, space + 1))


def test_space_5_offers_any_card() -> None:
    assert options(evolution(space=5)) == [1, 2, 3, 4, 5]


def test_an_empty_slot_is_not_offered() -> None:
    st = evolution(space=5, slots=["Abundance", "Shell Growth", None, None, None], deck=[])
    assert options(st) == [1, 2]


def test_every_effect_resolves_in_order() -> None:
    st = evolution(space=5)
    st.apply(5)  # Symbiosis: species 1, then vp 2
    assert species_at(st, 0, 0)[0] == 3 and vp(st, "cards")[0] == 2


def test_an_impossible_effect_is_skipped_and_the_rest_resolves() -> None:
    # Camouflage: remove 1 rival species from the scored tile (there is none), then 1 VP
    st = evolution(space=1, species=[2, 0], slots=["Camouflage", *SLOTS[1:]])
    assert vp(st, "cards")[0] == 1 and kind(st) == "place"


def test_choices_on_the_card_are_the_players() -> None:
    # Territorial: remove 1 rival species (a choice when two rivals are there), then 2 VP
    st = evolution(space=1, species=[2, 1, 1], slots=["Territorial", *SLOTS[1:]],
                   animals=("Reptiles", "Cephalopods", "Fishes"), kelp=[0, 0, 0])
    assert kind(st) == "card_remove" and options(st) == ["Cephalopods", "Fishes"]
    st.apply("Fishes")
    assert species_at(st, 0, 0) == [2, 1, 0] and vp(st, "cards")[0] == 2


def test_the_card_goes_to_the_face_up_discard_pile() -> None:
    st = evolution(space=5)
    st.apply(2)
    assert st.view(1)["discard"] == ["Shell Growth"] and vp(st, "cards")[0] == 4


def test_the_cards_above_the_empty_slot_slide_down_and_slot_5_is_refilled() -> None:
    st = evolution(space=5)
    st.apply(2)
    assert st.view(None)["slots"][1]["card"] == "Brood"
    assert [c["card"] for c in st.view(None)["slots"]] == ["Abundance", "Brood", "Regeneration", "Symbiosis", "Nursery"]
    assert st.view(None)["deck"] == ["Gyre"]


def test_slot_5_stays_empty_once_the_draw_pile_is_out() -> None:
    st = evolution(space=5, deck=[])
    st.apply(1)
    assert [None if c is None else c["card"] for c in st.view(None)["slots"]] == [
        "Shell Growth", "Brood", "Regeneration", "Symbiosis", None]


def test_a_dealt_event_triggers_at_once() -> None:
    # Red Tide: every animal loses 1 species on every Kelp Forest tile, the moment it is dealt
    st = evolution(space=5, deck=["Red Tide"])
    st.apply(1)
    assert st.view(None)["slots"][4]["card"] == "Red Tide"
    assert species_at(st, 1, 0) == [0, 0]


def test_a_dealt_card_s_enters_play_gain_happens_then() -> None:
    # Kelp Bloom: every animal with species on a Kelp Forest tile adds 1 there
    st = evolution(space=5, deck=["Kelp Bloom"])
    st.apply(1)
    assert species_at(st, 1, 0) == [0, 2]


def test_an_event_card_taken_later_gives_its_own_effects_not_the_event_again() -> None:
    st = evolution(space=1, slots=["Red Tide", *SLOTS[1:]])
    assert vp(st, "cards")[0] == 2 and species_at(st, 1, 0) == [0, 1]


def test_taking_the_asteroid_ends_the_game_at_the_end_of_the_round() -> None:
    st = evolution(space=1, slots=["Asteroid", *SLOTS[1:]])
    assert st.asteroid_taken and st.phase == "play"
    assert kind(st) == "place"  # the round goes on
    rounds = st.round
    while st.decision() is not None:
        st.choose(0)
    assert st.phase == "over" and st.round == rounds
    assert st.outcome() is not None


def test_the_asteroid_has_no_effect_of_its_own() -> None:
    st = evolution(space=1, slots=["Asteroid", *SLOTS[1:]])
    assert vp(st, "cards") == [0, 0] and species_at(st, 0, 0) == [2, 1]


def test_no_tile_of_the_marker_s_terrain_means_no_score_and_no_card() -> None:
    st = make([(0, 0, "Land", [2, 1])], elements=SUN_ON_CENTRE, markers=["Seamount"] * 5,
              stack=[["ask_evolution_tile", 0, 5]])
    assert vp(st) == [0, 0] and kind(st) == "place"


def test_the_player_chooses_which_tile_of_the_terrain_to_score() -> None:
    st = make([(0, 0, "Land", [2, 1]), (-1, 0, "Land", [0, 3])], markers=["Land"] * 5,
              stack=[["ask_evolution_tile", 0, 2]])
    assert kind(st) == "evolution_tile" and options(st) == [[-1, 0], [0, 0]]
    st.apply([-1, 0])
    assert vp(st) == [0, 8]


def test_card_species_near_adds_to_a_chosen_tile_next_to_the_scored_one() -> None:
    st = evolution(space=1, slots=["Adaptive Radiation", *SLOTS[1:]])
    assert kind(st) == "card_species_tile" and options(st) == [[0, 0], [1, 0]]
    st.apply([1, 0])
    assert species_at(st, 1, 0) == [2, 1]


def test_card_element_places_a_chosen_element_on_a_vacant_corner_of_the_scored_tile() -> None:
    st = evolution(space=1, slots=["Filter Feeding", *SLOTS[1:]])
    assert kind(st) == "card_element"
    st.apply("Worms")
    assert kind(st) == "card_corner" and [0, 0, "N"] not in options(st) and len(options(st)) == 5
    st.apply([0, 0, "S"])
    assert st.elements[(0, 0, "S")] == 5 and vp(st, "cards")[0] == 2


def test_card_move_moves_species_one_tile_at_a_time() -> None:
    st = evolution(space=1, slots=["Current", *SLOTS[1:]])
    assert kind(st) == "move" and options(st) == ["done", [[0, 0], [1, 0]]]
    st.apply([[0, 0], [1, 0]])
    assert species_at(st, 1, 0) == [1, 1]
    assert kind(st) == "move" and options(st) == ["done", [[0, 0], [1, 0]], [[1, 0], [0, 0]]]
    st.apply("done")
    assert kind(st) == "place"


def test_evolution_is_two_steps_score_then_card() -> None:
    st = evolution(space=2)
    events = st.apply(1)
    assert [e["event"] for e in events][:1] == ["card_taken"]
    st2 = make([(0, 0, "Land", [2, 1])], elements=SUN_ON_CENTRE, markers=["Land"] * 5, slots=SLOTS,
               deck=["Nursery"], stack=[["placement", 0, 0]])
    events = st2.apply(["evolution", 1])
    kinds = [e["event"] for e in events]
    assert kinds.index("evolution_score") < kinds.index("card_taken")


def test_each_of_the_five_spaces_shows_a_slot_number_and_a_terrain_marker() -> None:
    st = make([(0, 0, "Land", [2, 1])], markers=["Land", "Kelp Forest", "Coral Reef", "Seamount", "Open Ocean"])
    assert st.view(0)["markers"] == ["Land", "Kelp Forest", "Coral Reef", "Seamount", "Open Ocean"]
    assert [o for o in options(st) if o[0] == "evolution"] == [["evolution", k] for k in range(1, 6)]


def test_an_event_dealt_by_the_round_end_refill_triggers_too() -> None:
    st = make([(0, 0, "Land", [2, 1]), (1, 0, "Kelp Forest", [1, 1])], pawns=[0, 0], slots=SLOTS,
              deck=["Red Tide"], stack=[["placement", 0, 0]])
    assert st.round == 2 and species_at(st, 1, 0) == [0, 0]
