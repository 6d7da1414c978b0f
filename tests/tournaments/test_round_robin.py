"""Round-robin scheduling: every table once, sets of rotated seats with one seed, rounds without double-booking."""

from __future__ import annotations

from collections import Counter

import pytest

from tournaments.formats.round_robin import derive_seed, pack_rounds, schedule, tables


def test_every_table_of_the_entrants_plays_one_set() -> None:
    games = schedule([1, 2, 3, 4, 5], players=4, games_per_set=4, seed=1)
    assert len(games) == 5 * 4
    assert Counter(frozenset(g.seats) for g in games) == {frozenset(t): 4 for t in tables([1, 2, 3, 4, 5], 4)}


def test_a_set_shares_one_seed_and_rotates_every_entrant_through_every_seat() -> None:
    games = [g for g in schedule(["a", "b", "c"], players=3, games_per_set=3, seed=9) if g.table == 0]
    assert len({g.seed for g in games}) == 1
    for seat in range(3):
        assert {g.seats[seat] for g in games} == {"a", "b", "c"}


def test_different_tables_get_different_seeds_and_the_schedule_is_reproducible() -> None:
    first = schedule(list(range(6)), players=2, games_per_set=1, seed=3)
    assert first == schedule(list(range(6)), players=2, games_per_set=1, seed=3)
    assert len({g.seed for g in first}) == len(first)
    assert first != schedule(list(range(6)), players=2, games_per_set=1, seed=4)


def test_no_entrant_plays_twice_in_a_round() -> None:
    games = schedule(list(range(6)), players=2, games_per_set=1, seed=0)
    for number in {g.round for g in games}:
        seated = [e for g in games if g.round == number for e in g.seats]
        assert len(seated) == len(set(seated))
    assert pack_rounds([(1, 2), (3, 4), (1, 3)]) == [1, 1, 2]


@pytest.mark.parametrize(
    ("entrants", "players", "games", "message"),
    [
        ([1, 2], 3, 1, "needs at least 3 entrants, got 2"),
        ([1, 1, 2], 2, 1, "only once"),
        ([1, 2], 2, 0, "at least one game"),
    ],
)
def test_it_refuses_impossible_schedules(entrants: list[int], players: int, games: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        schedule(entrants, players, games, seed=0)


def test_derived_seeds_are_stable_31_bit_numbers() -> None:
    assert derive_seed(1, 2) == derive_seed(1, 2)
    assert 0 <= derive_seed(123456789, 987) < 2**31


def test_tournament_match_seeds_are_62_bit_like_every_other_seed() -> None:
    from tournaments.formats.sets import table_seed

    seeds = [game.seed for game in schedule(list(range(8)), players=2, games_per_set=1, seed=5)]
    seeds += [table_seed(5, round_number, table) for round_number in range(4) for table in range(8)]
    assert all(0 <= seed < 2**62 for seed in seeds)
    assert max(seeds) >= 2**31, "every match seed fits in 31 bits"
    assert len(set(seeds)) == len(seeds)
