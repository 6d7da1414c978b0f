"""The published components and setup (RULINGS "Dominant Species: Marine" (b)), and the options."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import InvalidOptions
from engine.marine import GAME
from engine.marine.board import corner_hexes, distance, hex_corners, neighbours
from engine.marine.data import ANIMALS, ASTEROID, DISPLAYS, ELEMENTS, TERRAIN_MARKERS, TERRAINS


def test_it_takes_2_to_4_players() -> None:
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    with pytest.raises(InvalidOptions):
        GAME.new_state(5, 1)


def test_the_food_chain_and_the_animal_displays() -> None:
    assert ANIMALS == ("Reptiles", "Cephalopods", "Fishes", "Crustaceans")
    assert DISPLAYS == {"Crustaceans": ("Worms", "Worms", "Algae"), "Fishes": ("Plankton", "Plankton", "Algae"),
                        "Cephalopods": ("Gastropods", "Gastropods", "Sponges"), "Reptiles": ("Sun", "Sun", "Sponges")}
    assert sorted(ELEMENTS) == ["Algae", "Gastropods", "Plankton", "Sponges", "Sun", "Worms"]


def test_8_terrains_ranked() -> None:
    assert TERRAINS == ("Land", "Kelp Forest", "Coral Reef", "Seamount", "Seagrass Meadow", "Sand Plain",
                        "Open Ocean", "Hydrothermal Vent")


def test_each_seat_plays_a_different_animal_dealt_from_the_seed() -> None:
    for n in (2, 3, 4):
        for seed in range(5):
            st = GAME.new_state(n, seed)
            assert len(set(st.animals)) == n
    assert len({tuple(GAME.new_state(2, seed).animals) for seed in range(20)}) > 3


def test_the_standard_earth_has_15_tiles_around_a_coral_reef() -> None:
    st = GAME.new_state(4, 1)
    assert len(st.terrain) == 15 and TERRAINS[st.terrain[(0, 0)]] == "Coral Reef"
    ring = sorted(TERRAINS[st.terrain[h]] for h in neighbours((0, 0)))
    assert ring == sorted(["Seagrass Meadow", "Sand Plain", "Seamount", "Kelp Forest", "Land", "Open Ocean"])
    counts = Counter(TERRAINS[t] for t in st.terrain.values())
    assert counts["Land"] == 4 and counts["Open Ocean"] == 4 and counts["Hydrothermal Vent"] == 2


def arm(st: object, start: tuple[int, int], terrain: str) -> list[tuple[int, int]]:
    """The tiles reached from a ring tile through tiles of its terrain or Vents, outwards."""
    terrains = st.terrain  # type: ignore[attr-defined]
    found, todo = [start], [start]
    while todo:
        h = todo.pop()
        for n in neighbours(h):
            if n in terrains and n not in found and distance(n) > 1 and \
                    TERRAINS[terrains[n]] in (terrain, "Hydrothermal Vent"):
                found.append(n)
                todo.append(n)
    return found


@pytest.mark.parametrize("terrain", ["Land", "Open Ocean"])
def test_4_more_tiles_beyond_land_and_ocean_with_a_vent_on_the_outermost(terrain: str) -> None:
    st = GAME.new_state(2, 1)
    start = next(h for h in neighbours((0, 0)) if TERRAINS[st.terrain[h]] == terrain)
    tiles = arm(st, start, terrain)
    assert len(tiles) == 5  # the ring tile and 4 beyond it
    outermost = max(tiles, key=distance)
    assert TERRAINS[st.terrain[outermost]] == "Hydrothermal Vent"
    assert [TERRAINS[st.terrain[h]] for h in tiles].count(terrain) == 4


def test_one_element_of_each_type_on_the_corners_of_the_centre_tile() -> None:
    st = GAME.new_state(3, 1)
    assert sorted(ELEMENTS[st.elements[c]] for c in hex_corners((0, 0))) == sorted(ELEMENTS)
    assert len(st.elements) == 6


def test_an_element_on_a_corner_touches_every_tile_meeting_there() -> None:
    for c in hex_corners((0, 0)):
        hexes = corner_hexes(c)
        assert (0, 0) in hexes and len(set(hexes)) == 3
        assert all(c in hex_corners(h) for h in hexes)


def test_3_species_of_each_animal_in_play_on_the_centre_tile() -> None:
    for n in (2, 3, 4):
        st = GAME.new_state(n, 2)
        assert st.species[(0, 0)] == [3] * n
        assert sum(sum(c) for c in st.species.values()) == 3 * n


@pytest.mark.parametrize(("players", "pawns"), [(2, 7), (3, 5), (4, 4)])
def test_action_pawns_per_player(players: int, pawns: int) -> None:
    assert GAME.new_state(players, 1).pawns == [pawns] * players


def test_6_special_pawns_on_their_setup_spaces_with_targets_at_0() -> None:
    view = GAME.new_state(2, 1).view(0)
    assert sorted(view["special_pawns"]) == sorted(ELEMENTS)
    assert all(p == {"controller": None, "place": "setup", "target": 0} for p in view["special_pawns"].values())


@pytest.mark.parametrize(("length", "cards"), [("short", 19), ("standard", 24), ("long", 29), ("epic", 34)])
def test_the_length_option_removes_cards_from_the_34(length: str, cards: int) -> None:
    st = GAME.new_state(2, 3, {"length": length})
    in_play = st.deck + [c for c in st.slots if c is not None]
    assert len(in_play) == cards + 1  # plus the Asteroid


def test_the_default_length_is_standard() -> None:
    assert GAME.validate_options({})["length"] == "standard"


def test_the_asteroid_is_shuffled_into_the_bottom_5() -> None:
    for seed in range(30):
        deck = GAME.new_state(2, seed).view(None)["deck"]
        assert ASTEROID in deck[-5:]


def test_5_cards_lie_face_up() -> None:
    st = GAME.new_state(2, 1)
    assert len(st.slots) == 5 and all(c is not None for c in st.slots)


def test_16_terrain_markers_and_5_drawn_sorted_by_rank() -> None:
    assert Counter(TERRAIN_MARKERS) == {t: 2 for t in TERRAINS}
    for seed in range(20):
        markers = GAME.new_state(2, seed).markers
        assert len(markers) == 5 and markers == sorted(markers)
        assert all(markers.count(m) <= 2 for m in markers)


def test_the_view_hides_the_draw_pile_and_the_tile_stacks_below_the_top() -> None:
    st = GAME.new_state(2, 1)
    view = st.view(0)
    assert "deck" not in view and view["deck_count"] == len(st.deck)
    assert all(set(s) == {"top", "count"} for s in view["tile_stacks"])
    assert st.view(None)["deck"][0] is not None
