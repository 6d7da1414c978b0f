"""Outcome: ranks from keys, and the one rule for forfeits (Outcome.with_forfeits) that the match loop, the replay
verifier and the results share."""

from __future__ import annotations

import pytest

from engine.core import Outcome


def outcome(ranks: list[int]) -> Outcome:
    return Outcome(scores=tuple(range(len(ranks))), ranks=tuple(ranks), tiebreaks=((),) * len(ranks))


def test_equal_keys_share_a_rank_and_higher_keys_rank_first() -> None:
    assert Outcome.from_keys([(3, 1), (5, 0), (3, 1), (3, 0)]).ranks == (2, 1, 2, 4)


@pytest.mark.parametrize(
    ("ranks", "forfeited", "expected"),
    [
        ([1, 2, 3], [True, False, False], [3, 1, 2]),
        ([1, 1, 3], [False, True, True], [1, 2, 3]),
        ([2, 1, 1, 4], [True, False, True, False], [4, 1, 3, 2]),  # forfeits keep their order, below all
        ([1, 2], [True, True], [1, 2]),
    ],
)
def test_forfeited_seats_rank_below_the_others_in_their_own_order(
    ranks: list[int], forfeited: list[bool], expected: list[int]
) -> None:
    result = outcome(ranks).with_forfeits(forfeited)
    assert list(result.ranks) == expected and result.termination == "forfeit"
    assert result.scores == outcome(ranks).scores and result.tiebreaks == outcome(ranks).tiebreaks


def test_without_a_forfeit_the_outcome_is_unchanged() -> None:
    plain = outcome([2, 1, 3])
    assert plain.with_forfeits([False, False, False]) is plain


def test_a_forfeit_list_of_the_wrong_length_is_named() -> None:
    with pytest.raises(ValueError, match="forfeited has 2 entries for 3 seats"):
        outcome([1, 2, 3]).with_forfeits([True, False])
