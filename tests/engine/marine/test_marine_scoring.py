"""The seed's Evolution scoring: the Tile Scoring table, the numbered clauses and the food-chain tie-breaks.

Each test scores one tile through the Evolution action: a state whose next step is an Evolution space whose
marker shows the tile's terrain, with that tile the only one of its terrain.
"""

from __future__ import annotations

import pytest
from marine_helpers import make, vp

from engine.marine.board import score_tile

FOUR = ("Reptiles", "Cephalopods", "Fishes", "Crustaceans")  # seat order = food-chain order here


def evolve(terrain: str, species: list[int], animals: tuple[str, ...] = FOUR) -> list[int]:
    """Score a lone tile of terrain with these species per seat, by seat 0's Evolution action on space 1."""
    st = make([(0, 0, terrain, species)], animals=animals, markers=[terrain] * 5,
              stack=[["ask_evolution_tile", 0, 1]])
    return vp(st)


@pytest.mark.parametrize(("terrain", "expected"), [
    ("Land", [8, 4, 2, 1]),
    ("Kelp Forest", [7, 4, 2, 0]),
    ("Coral Reef", [6, 3, 2, 0]),
    ("Seamount", [5, 3, 2, 0]),
    ("Seagrass Meadow", [4, 2, 0, 0]),
    ("Sand Plain", [3, 2, 0, 0]),
    ("Open Ocean", [2, 1, 0, 0]),
    ("Hydrothermal Vent", [1, 0, 0, 0]),
])
def test_each_row_of_the_tile_scoring_table(terrain: str, expected: list[int]) -> None:
    assert evolve(terrain, [4, 3, 2, 1]) == expected


def test_clause_1_the_most_species_take_the_first_value() -> None:
    assert evolve("Kelp Forest", [1, 5, 0, 0]) == [4, 7, 0, 0]


def test_clause_2_the_second_most_take_the_second_value() -> None:
    assert evolve("Open Ocean", [2, 0, 3, 0]) == [1, 0, 2, 0]


def test_clause_2_a_vent_has_no_second_place() -> None:
    assert evolve("Hydrothermal Vent", [2, 3, 0, 0]) == [0, 1, 0, 0]


def test_clause_2_an_animal_alone_takes_first_but_not_second() -> None:
    assert evolve("Land", [0, 0, 6, 0]) == [0, 0, 8, 0]


def test_clause_3_the_third_most_take_the_third_value_on_land_kelp_reef_and_seamount() -> None:
    for terrain, third in (("Land", 2), ("Kelp Forest", 2), ("Coral Reef", 2), ("Seamount", 2)):
        assert evolve(terrain, [3, 2, 1, 0])[2] == third, terrain


def test_clause_3_no_third_place_on_the_other_terrains() -> None:
    for terrain in ("Seagrass Meadow", "Sand Plain", "Open Ocean", "Hydrothermal Vent"):
        assert evolve(terrain, [3, 2, 1, 0])[2] == 0, terrain


def test_clause_3_the_third_place_must_be_a_third_animal() -> None:
    assert evolve("Land", [5, 1, 0, 0]) == [8, 4, 0, 0]


def test_clause_4_a_fourth_animal_on_land_scores_1() -> None:
    assert evolve("Land", [1, 1, 1, 1]) == [8, 4, 2, 1]


def test_clause_4_no_fourth_place_off_land() -> None:
    assert evolve("Kelp Forest", [4, 3, 2, 1])[3] == 0


@pytest.mark.parametrize(("higher", "lower"), [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
def test_a_tie_goes_to_the_animal_higher_on_the_food_chain(higher: int, lower: int) -> None:
    """Reptiles > Cephalopods > Fishes > Crustaceans, whatever the seats."""
    species = [0, 0, 0, 0]
    species[higher] = species[lower] = 2
    got = evolve("Seamount", species)
    assert (got[higher], got[lower]) == (5, 3)


def test_ties_follow_the_food_chain_not_the_seat_order() -> None:
    # seat 0 plays the Crustaceans, seat 1 the Reptiles: the Reptiles win the tie
    assert evolve("Coral Reef", [2, 2], animals=("Crustaceans", "Reptiles")) == [3, 6]


def test_a_three_way_tie_ranks_by_the_food_chain() -> None:
    assert evolve("Land", [2, 2, 2, 0], animals=("Fishes", "Reptiles", "Cephalopods", "Crustaceans")) == [2, 8, 4, 0]


def test_an_animal_with_no_species_on_the_tile_scores_nothing() -> None:
    assert evolve("Land", [3, 0, 0, 0]) == [8, 0, 0, 0]
    assert evolve("Land", [0, 0, 0, 0]) == [0, 0, 0, 0]


def test_score_tile_lists_places_in_order() -> None:
    assert score_tile(0, [1, 4, 2, 3], [0, 1, 2, 3]) == [(1, 8), (3, 4), (2, 2), (0, 1)]
