"""The project-defined rules (RULINGS "Dominant Species: Marine" (c)): placement, Speciation, Migration, Wanderlust,
the end of a round, the end of the game."""

from __future__ import annotations

import pytest
from marine_helpers import PLAIN, kind, make, options, species_at, vp

from engine.core import IllegalAction, InvalidOptions, InvalidState
from engine.marine import GAME
from engine.marine.data import ELEMENT_INDEX, SPECIES_SUPPLY
from engine.marine.render import render
from engine.registry import load_game

BOARD = [(0, 0, "Coral Reef", [3, 3]), (1, 0, "Sand Plain", [0, 0]), (1, -1, "Seagrass Meadow", [1, 0]),
         (-1, 0, "Land", [0, 2])]
SUN = [[0, 0, "N", "Sun"]]  # touches (0, 0) and (1, -1)


def test_placement_goes_in_seat_order_from_the_first_player() -> None:
    st = make([(0, 0, "Coral Reef", [3, 3, 3])], elements=SUN, first_player=1,
              animals=("Reptiles", "Cephalopods", "Fishes"), turn=1)
    seats = []
    for _ in range(4):
        d = st.decision()
        assert d is not None and d.kind == "place"
        seats.append(d.seat)
        st.apply(["evolution", 5 - len(seats) + 1])
        while kind(st) not in ("place", None):
            st.choose(0)
    assert seats == [1, 2, 0, 1]


def test_an_action_resolves_when_its_pawn_is_placed() -> None:
    st = make(BOARD, elements=SUN)
    st.apply(["speciation"])  # one element on the earth: the Speciation resolves at once, before seat 1 places
    assert species_at(st, 0, 0) == [4, 3] and st.display["speciation_1"] == (0, "pawn")
    assert st.decision().seat == 1  # type: ignore[union-attr]


def test_a_player_without_pawns_is_skipped_and_the_round_ends_when_nobody_can_place() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 1])
    assert st.decision().seat == 1  # type: ignore[union-attr]
    st.apply(["evolution", 1])
    while st.round == 1:
        st.choose(0)
    assert st.pawns == [7, 7] and not st.display and st.first == 1


def test_the_round_end_draws_new_terrain_markers_sorted_by_rank() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 0], seed=5, stack=[["placement", 0, 0]])
    assert st.round == 2 and st.markers == sorted(st.markers) and len(st.markers) == 5


def test_speciation_adds_a_species_on_every_tile_touching_the_chosen_element() -> None:
    st = make(BOARD, elements=SUN + [[1, 0, "S", "Worms"]], stack=[["ask_speciate", 0]])
    assert kind(st) == "speciate" and options(st) == [[0, 0, "N"], [1, 0, "S"]]
    st.apply([0, 0, "N"])
    assert species_at(st, 0, 0) == [4, 3] and species_at(st, 1, -1) == [2, 0] and species_at(st, 1, 0) == [0, 0]


def test_species_come_from_a_limited_supply() -> None:
    st = make([(0, 0, "Coral Reef", [SPECIES_SUPPLY, 0]), (1, -1, "Land", [0, 0])], elements=SUN,
              stack=[["ask_speciate", 0]])
    assert species_at(st, 0, 0) == [SPECIES_SUPPLY, 0] and species_at(st, 1, -1) == [0, 0]


def test_migration_offers_each_move_of_one_species_to_an_adjacent_tile() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_migrate", 0, 0]])
    assert kind(st) == "move"
    assert options(st) == ["done", [[0, 0], [-1, 0]], [[0, 0], [1, -1]], [[0, 0], [1, 0]], [[1, -1], [0, 0]],
                           [[1, -1], [1, 0]]]


def test_migration_moves_species_one_tile_each_up_to_the_limit() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_migrate", 0, 0]])
    for _ in range(3):
        st.apply([[0, 0], [1, 0]])
    assert species_at(st, 1, 0) == [3, 0] and kind(st) == "place"


def test_a_species_may_move_again() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_migrate", 0, 0]])
    st.apply([[0, 0], [1, 0]])
    st.apply([[1, 0], [1, -1]])
    assert species_at(st, 1, -1) == [2, 0] and species_at(st, 1, 0) == [0, 0]


def test_migration_may_stop_early() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_migrate", 0, 0]])
    st.apply("done")
    assert species_at(st, 0, 0) == [3, 3] and kind(st) == "place"


def test_the_migration_limit_is_an_option() -> None:
    st = make(BOARD, elements=SUN, options={"migration_moves": 1}, stack=[["ask_migrate", 0, 0]])
    st.apply([[0, 0], [1, 0]])
    assert kind(st) == "place"


def test_wanderlust_takes_the_top_tile_of_a_chosen_stack() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_stack", 0]])
    assert kind(st) == "wanderlust_stack" and options(st) == [0, 1, 2]
    assert st.view(1)["tile_stacks"][0] == {"top": "Land", "count": 2}
    st.apply(0)
    assert kind(st) == "wanderlust_hex"
    assert all(sum((h[0] + dq, h[1] + dr) in st.terrain for dq, dr in
                   ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))) >= 2 for h in options(st))
    st.apply([0, 1])
    assert st.terrain[(0, 1)] == 0 and st.view(None)["tile_stacks_full"][0] == ["Seamount"]


def test_wanderlust_puts_a_chosen_element_on_a_vacant_corner_of_the_new_tile() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_new_tile", 0, 0]])
    st.apply([0, 1])
    assert kind(st) == "wanderlust_element" and len(options(st)) == 6
    st.apply("Algae")
    assert kind(st) == "wanderlust_corner"
    st.apply(options(st)[0])
    assert ELEMENT_INDEX["Algae"] in st.elements.values()


def test_after_wanderlust_each_player_in_order_may_move_species_onto_the_new_tile() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_new_tile", 0, 0]])
    st.apply([0, 1])
    st.apply("Algae")
    st.apply(options(st)[0])
    assert kind(st) == "wanderlust_move" and st.decision().seat == 0  # type: ignore[union-attr]
    assert options(st) == ["done", [0, 0]]
    st.apply([0, 0])
    st.apply([0, 0])  # the second and last of seat 0
    assert st.decision().seat == 1 and kind(st) == "wanderlust_move"  # type: ignore[union-attr]
    assert options(st) == ["done", [0, 0]]
    st.apply("done")
    assert species_at(st, 0, 1) == [2, 0] and kind(st) == "place"


def test_at_the_round_end_slot_1_is_discarded_and_the_cards_slide_down() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 0], slots=["Abundance", "Brood", "Gyre", "Hunt", "Current"],
              deck=["Nursery"])
    assert st.round == 2 and st.view(0)["discard"] == ["Abundance"]
    assert [c["card"] for c in st.view(0)["slots"]] == ["Brood", "Gyre", "Hunt", "Current", "Nursery"]


def test_without_reset_discard_the_slots_stay() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 0], options={"reset_discard": False},
              slots=["Abundance", "Brood", "Gyre", "Hunt", "Current"])
    assert st.round == 2 and st.view(0)["discard"] == []


def test_the_asteroid_discarded_from_slot_1_at_the_round_end_ends_the_game_and_is_named_so() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 1], slots=["Asteroid", "Brood", "Gyre", "Hunt", "Current"])
    events = st.apply(["speciation"])  # seat 1's last pawn: the round ends
    assert st.phase == "over" and st.round == 1
    assert st.asteroid_discarded and not st.asteroid_taken
    assert {"event": "asteroid_discarded", "slot": 1} in events
    assert st.view(0)["asteroid_discarded"] and not st.view(0)["asteroid_taken"]
    assert "the Asteroid was discarded from slot 1" in render(st.view(0))
    assert GAME.state_from_dict(st.to_dict()).asteroid_discarded


def test_rules_1_called_the_discarded_asteroid_taken_so_old_replays_replay() -> None:
    rules1 = load_game("marine", "1")
    data = make(BOARD, elements=SUN, pawns=[0, 1], slots=["Asteroid", *PLAIN[:4]]).to_dict()
    del data["asteroid_discarded"]
    st = rules1.state_from_dict(data)
    events = st.apply(["speciation"])
    assert st.phase == "over" and st.asteroid_taken and not st.asteroid_discarded
    assert [e["event"] for e in events if "asteroid" in e["event"]] == []
    assert "asteroid_discarded" not in st.view(None) and "asteroid_discarded" not in st.to_dict()
    assert st.clone().game is rules1 and rules1.rules_version == "1" and GAME.rules_version == "2"


def test_a_rules_1_state_with_the_rules_2_key_is_refused() -> None:
    with pytest.raises(InvalidState, match="asteroid_discarded: marine rules 1 have no such key"):
        load_game("marine", "1").state_from_dict(make(BOARD, elements=SUN).to_dict())


def test_an_unknown_rules_version_is_named() -> None:
    with pytest.raises(InvalidOptions, match="marine has no rules version '9'; this engine has '1', '2'"):
        load_game("marine", "9")


def test_max_rounds_ends_the_game_after_that_round() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 0], options={"max_rounds": 1}, stack=[["placement", 0, 0]])
    assert st.phase == "over"


def test_at_the_end_every_tile_is_scored_once() -> None:
    st = make(BOARD, elements=SUN, pawns=[0, 0], asteroid_taken=True, stack=[["placement", 0, 0]])
    assert st.phase == "over"
    # Coral Reef 3-3: the Reptiles win the tie (6, 3); Seagrass: seat 0 alone (4); Land: seat 1 alone (8)
    assert vp(st, "final") == [6 + 4, 3 + 8]


def test_a_game_ends_with_an_outcome_whose_ties_go_up_the_food_chain() -> None:
    st = make([(0, 0, "Land", [1, 1])], animals=("Crustaceans", "Reptiles"), pawns=[0, 0], asteroid_taken=True,
              vp=[{"evolution": 4}, {}], stack=[["placement", 0, 0]])
    outcome = st.outcome()
    assert outcome is not None and outcome.scores == (8, 8) and outcome.ranks == (2, 1)


def test_an_illegal_action_names_the_action_and_changes_nothing() -> None:
    st = GAME.new_state(2, 1)
    before = st.to_dict()
    with pytest.raises(IllegalAction, match="wanderland"):
        st.apply(["wanderland"])
    assert st.to_dict() == before


def test_apply_returns_public_events() -> None:
    st = GAME.new_state(2, 1)
    events = st.apply(["speciation"])
    assert events and events[0]["event"] == "placed"


def test_a_state_round_trips_through_its_dict() -> None:
    st = make(BOARD, elements=SUN, stack=[["ask_migrate", 0, 1]])
    assert GAME.state_from_dict(st.to_dict()) == st
