"""Swiss pairing (tournaments/formats/swiss.py): grouped by standing, no repeats where avoidable, byes. No DB."""

from __future__ import annotations

from collections import Counter

import pytest

from tournaments.formats.swiss import default_rounds, met_counts, pair_round

SIZES = [2, 3, 4, 5, 6]


def standings(n: int, points: dict[int, float] | None = None) -> list[tuple[int, float]]:
    return [(e, (points or {}).get(e, 0.0)) for e in range(n)]


@pytest.mark.parametrize("players", SIZES)
@pytest.mark.parametrize("extra", [0, 1])
def test_every_entrant_plays_or_has_a_bye_once(players: int, extra: int) -> None:
    n = 2 * players + extra
    round_ = pair_round(standings(n), players, {})
    seated = [e for table in round_.tables for e in table]
    assert sorted(seated + round_.byes) == list(range(n))
    assert all(len(table) == players for table in round_.tables)
    assert len(round_.byes) == n % players


@pytest.mark.parametrize("players", SIZES)
def test_tables_group_entrants_by_standing(players: int) -> None:
    n = 3 * players
    points = {e: float(n - e) for e in range(n)}  # entrant 0 leads
    round_ = pair_round(standings(n, points), players, {})
    assert round_.tables == [tuple(range(k * players, (k + 1) * players)) for k in range(3)]


def test_ties_in_standings_keep_the_given_order() -> None:
    given = [(5, 1.0), (3, 1.0), (9, 0.0), (1, 1.0)]
    assert pair_round(given, 2, {}).tables == [(5, 3), (1, 9)]


@pytest.mark.parametrize("players", [2, 3])
def test_it_avoids_repeats_over_rounds_when_it_can(players: int) -> None:
    n = 4 * players
    history: list[tuple[int, ...]] = []
    for round_number in range(3):
        points = {e: float(sum(1 for t in history if t[0] == e)) for e in range(n)}  # whoever sat first "won"
        round_ = pair_round(standings(n, points), players, met_counts(history))
        new_pairs = met_counts(round_.tables)
        assert not set(new_pairs) & set(met_counts(history)), f"repeat in round {round_number + 1}"
        history.extend(round_.tables)


def test_it_repeats_the_fewest_pairs_when_repeats_are_unavoidable() -> None:
    history = [(0, 1), (2, 3), (0, 2), (1, 3)]  # only 0-3 and 1-2 are new; every entrant met two of three
    round_ = pair_round(standings(4), 2, met_counts(history))
    assert sorted(map(sorted, round_.tables)) == [[0, 3], [1, 2]]
    round_ = pair_round(standings(4), 2, met_counts(history + [(0, 3), (1, 2)]))
    assert len(round_.tables) == 2  # everyone has met everyone: it still pairs


def test_byes_go_to_the_lowest_placed_who_had_the_fewest() -> None:
    points = {0: 3.0, 1: 2.0, 2: 1.0, 3: 1.0, 4: 0.0}
    assert pair_round(standings(5, points), 2, {}).byes == [4]
    assert pair_round(standings(5, points), 2, {}, byes_had={4: 1}).byes == [3]
    assert pair_round(standings(7), 4, {}).byes == [4, 5, 6]


def test_a_withdrawn_entrant_left_out_of_the_standings_is_not_paired() -> None:
    round_ = pair_round([(e, 0.0) for e in (0, 1, 3, 4, 5)], 2, {})
    assert 2 not in [e for table in round_.tables for e in table] + round_.byes
    assert len(round_.byes) == 1


@pytest.mark.parametrize(("given", "players", "message"), [
    ([(1, 0.0)], 2, "needs at least 2 entrants, got 1"),
    ([(1, 0.0), (1, 0.0)], 2, "only once"),
    ([(1, 0.0), (2, 0.0)], 1, "at least 2 players"),
])
def test_it_refuses_impossible_rounds(given: list[tuple[int, float]], players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pair_round(given, players, {})


def test_default_rounds_separate_one_winner_of_two_player_tables() -> None:
    assert [default_rounds(n) for n in (2, 3, 4, 5, 8, 9)] == [1, 2, 2, 3, 3, 4]


def test_pairing_is_deterministic() -> None:
    history = [(0, 5), (1, 4), (2, 3)]
    first = pair_round(standings(6, {0: 1, 1: 1, 2: 1}), 2, met_counts(history))
    assert first == pair_round(standings(6, {0: 1, 1: 1, 2: 1}), 2, met_counts(history))
    assert Counter(e for t in first.tables for e in t) == Counter(range(6))
