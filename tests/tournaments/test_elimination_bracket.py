"""Single-elimination brackets (tournaments/formats/elimination.py): seeding, byes, who advances. No DB."""

from __future__ import annotations

import pytest

from tournaments.formats.elimination import (
    TableResult,
    advance_count,
    advancers,
    deal_tables,
    is_final,
    next_entrants,
    rounds_needed,
    table_order,
)

SIZES = [2, 3, 4, 5, 6]


def ranks(seeded: list[int]) -> dict[int, int]:
    return {e: i for i, e in enumerate(seeded)}


def test_the_snake_deals_tables_so_the_best_seeds_meet_last() -> None:
    assert deal_tables(list(range(8)), 2) == [(0, 7), (1, 6), (2, 5), (3, 4)]
    assert deal_tables(list(range(8)), 4) == [(0, 3, 4, 7), (1, 2, 5, 6)]


@pytest.mark.parametrize(("n", "byes"), [(3, [0]), (5, [0]), (7, [0])])
def test_odd_entrants_give_the_top_seed_a_bye(n: int, byes: list[int]) -> None:
    tables = deal_tables(list(range(n)), 2)
    assert [t[0] for t in tables if len(t) == 1] == byes
    assert sorted(e for t in tables for e in t) == list(range(n))


@pytest.mark.parametrize("players", SIZES)
@pytest.mark.parametrize("n", range(2, 14))
def test_every_bracket_shrinks_to_one_final_table(players: int, n: int) -> None:
    seeded = list(range(n))
    rank = ranks(seeded)
    rounds = 1
    while not is_final(len(seeded), players):
        tables = deal_tables(seeded, players)
        assert max(map(len, tables)) - min(map(len, tables)) <= 1
        assert all(len(t) <= players for t in tables)
        # Results where the worse seed wins every table: upsets must still shrink the field.
        results = {e: TableResult(sets_won=float(e)) for e in seeded}
        going = next_entrants(tables, results, rank, players)
        assert len(going) < len(seeded)
        assert going == sorted(going, key=rank.__getitem__)
        seeded = going
        rounds += 1
    assert len(seeded) in range(1, players + 1), f"{len(seeded)} finalists for a table of {players}"
    assert rounds == rounds_needed(n, players)


@pytest.mark.parametrize(("players", "advance"), [(2, 1), (3, 1), (4, 2), (5, 2), (6, 3)])
def test_half_of_each_table_advances(players: int, advance: int) -> None:
    assert advance_count(players) == advance
    table = tuple(range(players))
    results = {e: TableResult(points=float(-e)) for e in table}
    assert advancers(table, results, ranks(list(table)), players) == list(range(advance))


def test_a_short_table_always_eliminates_someone() -> None:
    assert advancers((0, 1), {}, {0: 0, 1: 1}, players=4) == [0]


def test_sets_decide_before_points_and_the_better_seed_breaks_ties() -> None:
    rank = {"a": 0, "b": 1, "c": 2}
    results = {"a": TableResult(1, 9.0), "b": TableResult(2, 1.0), "c": TableResult(2, 1.0)}
    assert table_order(("a", "b", "c"), results, rank) == ["b", "c", "a"]
    assert advancers(("c", "b"), {"b": TableResult(1, 2.0), "c": TableResult(1, 2.0)}, rank, 2) == ["b"]


def test_a_bye_advances_unplayed() -> None:
    assert advancers((5,), {}, {5: 0}, players=2) == [5]


@pytest.mark.parametrize(("seeded", "players", "message"), [
    ([1], 2, "at least 2 entrants"), ([1, 1], 2, "only once"), ([1, 2], 1, "at least 2 players"),
])
def test_it_refuses_impossible_rounds(seeded: list[int], players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        deal_tables(seeded, players)
