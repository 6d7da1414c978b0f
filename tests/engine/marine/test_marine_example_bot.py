"""examples/bots/marine_bot.py plays legal Marine games through the SDK's act(view, decision) interface."""

from __future__ import annotations

import importlib.util
import random
import sys
import types
from pathlib import Path
from typing import Any

from engine.marine import GAME

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bots" / "marine_bot.py"


def load_example() -> Any:
    ludus = types.ModuleType("ludus")
    ludus.run = lambda act: None  # type: ignore[attr-defined]
    sys.modules["ludus"] = ludus
    spec = importlib.util.spec_from_file_location("marine_example_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_bot_plays_whole_games_with_legal_choices() -> None:
    bot = load_example()
    for seed in range(3):
        st = GAME.new_state(3, seed)
        rng = random.Random(seed)
        while (d := st.decision()) is not None:
            i = bot.act(st.view(d.seat), d.to_dict()) if d.seat == 0 else rng.randrange(len(d.options))
            assert 0 <= i < len(d.options)
            st.choose(i)
        assert st.outcome() is not None
