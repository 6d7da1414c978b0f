"""The order a bracket's rounds are drawn in (tournaments/pages/brackets.bracket_order): the sets feeding one set of
the next round sit together, in that round's order, so the lines between rounds never cross."""

from __future__ import annotations

from tournaments.pages.brackets import bracket_order


def test_it_keeps_the_last_round_as_dealt_and_groups_the_round_before_by_where_its_entrants_go() -> None:
    # Eight seeds, tables of two, dealt in a snake: 1-8, 2-7, 3-6, 4-5; the favourites win, dealt again: 1-4, 2-3.
    first = [(1, 8), (2, 7), (3, 6), (4, 5)]
    second = [(1, 4), (2, 3)]
    assert bracket_order([first, second, [(1, 2)]]) == [[0, 3, 1, 2], [0, 1], [0]]


def test_a_bye_sits_beside_the_set_it_meets_in_the_next_round() -> None:
    first = [(1,), (2, 5), (3, 4)]  # seed 1 sits out
    second = [(1, 3), (2,)]  # 3 beat 4, then 2 sits out
    assert bracket_order([first, second, [(1, 2)]]) == [[0, 2, 1], [0, 1], [0]]


def test_sets_of_a_round_still_being_played_keep_their_order() -> None:
    assert bracket_order([[(1, 4), (2, 3)]]) == [[0, 1]]
    assert bracket_order([[(1, 6), (2, 5), (3, 4)], [(2, 6)]]) == [[0, 1, 2], [0]]  # table 3 goes on to no set yet
