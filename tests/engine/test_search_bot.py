"""examples/bots/search_bot.py: its pruning of options, its fallback to greedy once lag has cost half its bank,
and whole games through the SDK (docs/bots.md, "Search bots")."""

from __future__ import annotations

import math
import sys
import time
from typing import Any

import pytest

from benchmarks.search_bot import BOT_FILE, load_bot, play_one
from engine import sdk


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setitem(sys.modules, "ludus", sdk)  # another test may have left a stand-in there
    return load_bot(BOT_FILE.read_bytes())


def test_pruning_drops_an_option_level_with_the_best_in_every_world_and_one_clearly_behind(example: Any) -> None:
    # the favourite (0) has KEEP more; 1 matches it world by world, 2 is far behind, 3 is noisy and stays in doubt
    leads = {0: [1, 2, 3], 1: [1, 2, 3], 2: [-5, -4, -6], 3: [4, -3, 5]}
    assert example.prune([0, 1, 2, 3], leads, 0) == [0, 3]


def test_pruning_waits_for_min_worlds_and_drops_the_favourite_when_another_is_clearly_better(example: Any) -> None:
    assert example.prune([0, 1, 2], {0: [1, 2], 1: [1, 2], 2: [-9, -9]}, 0) == [0, 1, 2]
    assert example.prune([0, 1], {0: [0, 0, 0], 1: [5, 6, 5]}, 0) == [1]


def test_once_lag_has_cost_half_the_bank_the_bot_plays_greedys_favourite_without_searching(example: Any) -> None:
    bot = example.bot
    bot.hello = {"type": "hello", "game": "evolution", "seat": 0, "players": 2,
                 "clock": {"move_ms": 200, "bank_ms": 2000}}
    example.scorer()  # a new match
    bot.clock = {"move_ms": 200, "bank_ms": 1900}
    assert example.margin() < math.inf
    bot.clock = {"move_ms": 200, "bank_ms": 999}
    assert example.margin() == math.inf
    bot.started = time.monotonic()
    # an empty view: determinize would raise, so the answer shows that no world was dealt
    assert example.search({}, [2, 0, 1], math.inf) == 2


@pytest.mark.slow
@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_the_search_bot_plays_a_whole_game_through_the_sdk_within_its_clock(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ludus", sdk)
    monkeypatch.setattr(sdk, "time", time)  # the CPU clock below replaces the SDK's: put it back afterwards
    found = play_one((game, 3, 1, 5, BOT_FILE.read_bytes(), True))  # 5 ms of CPU a move
    assert found["timeouts"] == 0 and found["bank_left_ms"] > 1000, found
    assert found["points"] in (0.0, 0.5, 1.0)
