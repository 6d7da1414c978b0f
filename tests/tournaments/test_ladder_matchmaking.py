"""Ladder matchmaking (tournaments/formats/ladder.py): close ratings, exploration, determinism. No DB."""

from __future__ import annotations

from collections import Counter

import pytest

from tournaments.formats.ladder import Candidate, Matchmaking, pick_tables

SIZES = [2, 3, 4, 5, 6]


def pool(n: int, games: int = 50) -> list[Candidate[int]]:
    return [Candidate(id=i, mu=10.0 * i, games=games, last_played=100 + i) for i in range(n)]


@pytest.mark.parametrize("players", SIZES)
def test_tables_have_distinct_bots_and_the_right_size(players: int) -> None:
    tables = pick_tables(pool(9), players, count=20, seed=1)
    assert len(tables) == 20
    assert all(len(t) == players == len(set(t)) for t in tables)


@pytest.mark.parametrize("players", SIZES)
def test_the_same_seed_gives_the_same_tables_whatever_the_input_order(players: int) -> None:
    bots = pool(8)
    assert pick_tables(bots, players, 5, seed=3) == pick_tables(list(reversed(bots)), players, 5, seed=3)
    assert pick_tables(bots, players, 5, seed=3) != pick_tables(bots, players, 5, seed=4)


def test_without_exploration_tables_are_of_close_ratings() -> None:
    tables = pick_tables(pool(20), 2, count=200, seed=5, rules=Matchmaking(explore=0.0, window=1))
    assert max(abs(a - b) for a, b in tables) <= 2  # mu 10 apart per id: nearest two rivals only


def test_new_bots_get_their_exploration_share() -> None:
    bots = pool(12)[:-1] + [Candidate(id=99, mu=0.0, games=0)]
    tables = pick_tables(bots, 2, count=400, seed=2, rules=Matchmaking(explore=0.5))
    share = sum(99 in t for t in tables) / len(tables)
    assert share > 0.3  # about half anchored on it, plus rival picks; a fair share would be 2/12


def test_idle_bots_are_drawn_in() -> None:
    bots = [Candidate(id=i, mu=25.0, games=50, last_played=1000 + i) for i in range(11)]
    bots.append(Candidate(id=77, mu=25.0, games=50, last_played=1))
    tables = pick_tables(bots, 2, count=300, seed=8, rules=Matchmaking(explore=0.5))
    counts = Counter(e for t in tables for e in t)
    assert counts[77] > counts.most_common()[-2][1]


@pytest.mark.parametrize("seed", range(5))
def test_a_batch_spreads_over_the_pool(seed: int) -> None:
    tables = pick_tables(pool(8), 2, count=4, seed=seed)
    assert max(Counter(e for t in tables for e in t).values()) <= 2
    assert len({e for t in tables for e in t}) >= 6


@pytest.mark.parametrize(("bots", "players", "message"), [
    (pool(2), 3, "needs at least 3 bots, got 2"),
    ([Candidate(1, 0.0), Candidate(1, 1.0)], 2, "only once"),
])
def test_it_refuses_impossible_tables(bots: list[Candidate[int]], players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pick_tables(bots, players, 1, seed=0)


@pytest.mark.parametrize(("settings", "message"), [
    ({"rate": 1}, "unknown matchmaking setting"), ({"explore": 2}, "0 <= explore <= 1"),
])
def test_bad_matchmaking_settings_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Matchmaking.from_settings(settings)
    assert Matchmaking.from_settings({"explore": "0.1", "window": 3}) == Matchmaking(explore=0.1, window=3)
