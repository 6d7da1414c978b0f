"""engine/ stays standard-library only (docs/architecture.md#four-packages-one-direction): no Django, Celery or DRF,
and rich only on demand.

Checked in a fresh subprocess, since pytest-django may already have imported Django into this one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "celery", "rest_framework", "kombu", "rich")

PROBE = """
import json, sys
import engine, engine.bots, engine.cli, engine.cli.simulate, engine.cli.human_play, engine.cli.show
from engine.bots import bot_names, make_bot
from engine.registry import game_names, load_game
for name in game_names():
    game = load_game(name)
    state = game.new_state(game.min_players, 1)
    for bot in bot_names():
        make_bot(bot, name, 1).act(state.view(0), state.decision())
from engine.cli.simulate import simulate
for name in game_names():
    simulate(load_game(name), load_game(name).min_players, 1, 0, {}, ["greedy", "random"])
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN)))
"""


def test_importing_and_running_the_engine_loads_no_django_celery_drf_or_rich() -> None:
    code = f"FORBIDDEN = {FORBIDDEN!r}\n" + PROBE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_no_engine_module_names_a_forbidden_package_at_top_level() -> None:
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if line[:1] not in (" ", "\t") and words[:1] in (["import"], ["from"]) and len(words) > 1:
                if words[1].split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.relative_to(ROOT)}: {line}")
    assert not offenders, offenders
