"""The state's caches of what a view shows of the tiles and the elements (MarineState.tile_rows, element_rows) are
dropped by the mutations that change them, on the state itself only: a clone shares them until it changes. The
random games of tests/engine/test_view_caches.py cover play; these pin each mutation on its own."""

from __future__ import annotations

from marine_helpers import make

from engine.marine import GAME, MarineState


def fresh_view(st: MarineState) -> dict[str, object]:
    return GAME.state_from_dict(st.to_dict()).view(None)


def start() -> MarineState:
    st = make([(0, 0, "Coral Reef", [2, 1]), (1, 0, "Land", [0, 1])], elements=[[0, 0, "N", "Sun"]])
    st.view(None)  # fills the caches
    return st


def test_a_new_tile_shows_in_the_next_view_in_tile_order() -> None:
    st = start()
    st.add_tile((-1, 0), 3)  # sorts before the tiles there
    view = st.view(None)
    assert [t["hex"] for t in view["tiles"]] == [[-1, 0], [0, 0], [1, 0]]
    assert view["tiles"][0]["terrain"] == "Seamount"
    assert view == fresh_view(st)


def test_a_new_element_shows_in_the_next_view_sorted_by_corner() -> None:
    st = start()
    st.set_element((1, 0, "N"), 2)
    st.set_element((0, 0, "S"), 0)
    view = st.view(None)
    assert view["elements"] == [[0, 0, "N", "Sun"], [0, 0, "S", "Algae"], [1, 0, "N", "Plankton"]]
    assert view == fresh_view(st)


def test_a_clone_that_adds_a_tile_and_an_element_leaves_the_originals_views() -> None:
    st = start()
    before = st.view(None)
    twin = st.clone()
    twin.add_tile((0, 1), 0)
    twin.set_element((0, 1, "N"), 5)
    assert twin.view(None) == fresh_view(twin) != before
    assert st.view(None) == before == fresh_view(st)
