"""The seed's Domination action: the element type you dominate, its special pawn, its control marker, its target
marker, the space limits; and the project-defined domination value and dominance it rests on."""

from __future__ import annotations

from typing import Any

from marine_helpers import kind, make, options

from engine.marine.data import ELEMENT_INDEX
from engine.marine.state import SpecialPawn

SUN = ELEMENT_INDEX["Sun"]
BOARD = [(0, 0, "Coral Reef", [3, 1]), (1, 0, "Land", [1, 2]), (-3, 0, "Land", [0, 4])]
ELEMENTS = [[0, 0, "N", "Sun"], [0, 0, "S", "Sponges"], [-3, 0, "N", "Worms"]]  # (0, 0, S) also touches (0, 1)


def dominate(specials: dict[str, Any] | None = None, stack: list[list[Any]] | None = None, **kw: Any) -> Any:
    """Seat 0 (Reptiles) takes a Domination space."""
    return make(BOARD, elements=ELEMENTS, special_pawns=specials or {},
                stack=stack if stack is not None else [["ask_dominate", 0]], **kw)


def test_the_domination_value_counts_species_on_tiles_touching_the_type() -> None:
    st = dominate()
    # Sun on (0, 0, N) touches (0, 0), (0, -1), (1, -1): only (0, 0) is a tile
    assert st.domination_values(SUN) == [3, 1]
    assert st.domination_values(ELEMENT_INDEX["Worms"]) == [0, 4]
    assert st.domination_values(ELEMENT_INDEX["Algae"]) == [0, 0]


def test_dominance_is_strictly_the_highest_value() -> None:
    st = dominate()
    assert st.dominant(SUN) == 0 and st.dominant(ELEMENT_INDEX["Worms"]) == 1
    assert st.dominant(ELEMENT_INDEX["Algae"]) is None  # nobody at 0


def test_a_tie_in_domination_value_goes_up_the_food_chain() -> None:
    st = make([(0, 0, "Land", [2, 2])], animals=("Crustaceans", "Fishes"), elements=[[0, 0, "N", "Algae"]])
    assert st.dominant(ELEMENT_INDEX["Algae"]) == 1  # Fishes above Crustaceans


def test_only_element_types_you_dominate_are_offered() -> None:
    st = dominate()
    assert kind(st) == "dominate" and options(st) == ["Sponges", "Sun"]


def test_the_domination_space_is_offered_only_to_a_player_who_dominates_something() -> None:
    st = make([(0, 0, "Land", [1, 0])], elements=[[0, 0, "N", "Worms"]])
    assert ["domination"] in options(st)
    st2 = make([(0, 0, "Land", [0, 1])], elements=[[0, 0, "N", "Worms"]])
    assert ["domination"] not in options(st2)


def test_step_1_a_pawn_on_its_setup_space_goes_in_front_of_you_available() -> None:
    st = dominate()
    st.apply("Sun")
    assert (st.special[SUN].controller, st.special[SUN].place) == (0, "ready")


def test_step_1_a_pawn_in_front_of_another_player_goes_in_front_of_you_available() -> None:
    st = dominate({"Sun": {"controller": 1, "place": "ready", "target": 1}})
    st.apply("Sun")
    assert (st.special[SUN].controller, st.special[SUN].place) == (0, "ready")
    assert st.view(0)["special_pawns"]["Sun"]["controller"] == 0


def test_a_special_pawn_in_front_of_you_is_an_extra_pawn() -> None:
    st = make(BOARD, elements=ELEMENTS, pawns=[0, 7], special_pawns={"Sun": {"controller": 0, "place": "ready"}})
    assert kind(st) == "place" and st.decision().seat == 0  # type: ignore[union-attr]
    st.apply(["speciation"])
    assert st.display["speciation_1"] == (0, "Sun") and st.special[SUN].place == "display"


def test_special_pawns_are_placed_before_action_pawns() -> None:
    st = make(BOARD, elements=ELEMENTS, special_pawns={"Sun": {"controller": 0, "place": "ready"}})
    st.apply(["migration"])
    assert st.display["migration_1"] == (0, "Sun") and st.pawns[0] == 7


def test_step_1_a_pawn_on_the_action_display_stays_there() -> None:
    st = dominate({"Sun": {"controller": 1, "place": "display", "target": 1}},
                  display={"migration_1": [1, "Sun"]})
    st.apply("Sun")
    assert (st.special[SUN].controller, st.special[SUN].place) == (0, "display")
    assert st.display["migration_1"] == (1, "Sun")


def test_step_1_you_collect_a_pawn_from_the_display_when_you_next_retrieve() -> None:
    st = dominate({"Sun": {"controller": 1, "place": "display", "target": 1}},
                  display={"migration_1": [1, "Sun"]}, pawns=[0, 0])
    st.apply("Sun")
    # nobody can place any more: the round ends, pawns are retrieved and the Sun pawn comes to seat 0
    while st.round == 1:
        st.choose(0)
    assert (st.special[SUN].controller, st.special[SUN].place) == (0, "ready")
    assert not any(p == "Sun" for _s, p in st.display.values())


def test_step_2_you_take_the_control_marker() -> None:
    st = dominate({"Sun": {"controller": 1, "place": "ready", "target": 5}})
    st.apply("Sun")
    assert st.special[SUN].controller == 0


def test_step_3_the_target_marker_moves_up_to_your_domination_value() -> None:
    st = dominate()
    st.apply("Sun")
    assert st.special[SUN].target == 3


def test_step_3_a_target_marker_above_your_value_is_not_moved_down() -> None:
    st = dominate({"Sun": {"controller": 1, "place": "ready", "target": 9}})
    st.apply("Sun")
    assert st.special[SUN] == SpecialPawn(0, "ready", 9)


def test_with_2_players_only_the_left_domination_space_is_open() -> None:
    st = dominate(stack=[["placement", 0, 0]], display={"domination_1": [1, "pawn"]})
    assert ["domination"] not in options(st)


def test_the_middle_domination_space_opens_with_3_players() -> None:
    board = [(0, 0, "Coral Reef", [3, 1, 0])]
    st = make(board, animals=("Reptiles", "Cephalopods", "Fishes"), elements=ELEMENTS[:1],
              display={"domination_1": [1, "pawn"]})
    assert ["domination"] in options(st)
    st.apply(["domination"])
    assert "domination_2" in st.display
    full = make(board, animals=("Reptiles", "Cephalopods", "Fishes"), elements=ELEMENTS[:1],
                display={"domination_1": [1, "pawn"], "domination_2": [2, "pawn"]})
    assert ["domination"] not in options(full)


def test_the_right_domination_space_opens_only_with_4_players() -> None:
    board = [(0, 0, "Coral Reef", [3, 1, 0, 0])]
    st = make(board, animals=("Reptiles", "Cephalopods", "Fishes", "Crustaceans"), elements=ELEMENTS[:1],
              display={"domination_1": [1, "pawn"], "domination_2": [2, "pawn"]})
    st.apply(["domination"])
    assert "domination_3" in st.display


def test_control_markers_score_their_target_markers_at_the_end() -> None:
    st = make(BOARD, elements=ELEMENTS, pawns=[0, 0], asteroid_taken=True,
              special_pawns={"Sun": {"controller": 0, "place": "ready", "target": 4},
                             "Worms": {"controller": 1, "place": "ready", "target": 6}}, stack=[["final_scoring"]])
    assert st.phase == "over"
    assert [st.score_parts(s)["domination"] for s in range(2)] == [4, 6]
    outcome = st.outcome()
    assert outcome is not None and list(outcome.scores) == [sum(st.score_parts(s).values()) for s in range(2)]
