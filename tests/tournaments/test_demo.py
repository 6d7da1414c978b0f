"""`manage.py demo --no-serve` (what `make demo` runs) on a fresh SQLite file, with the embedded runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def manage(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_demo_runs_a_tournament_on_sqlite_and_prints_standings(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    env.update(DEBUG="1", DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}", LUDUS_WORKER_CONCURRENCY="2")
    done = manage(root, env, "demo", "--no-serve", "--entrants", "4", "--players", "3", "--games", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Round robin of 4 bots" in out and "8 matches" in out
    assert "on 2 local processes" in out
    for heading in ("bot", "games", "wins", "points", "mean score", "rating (mu-3σ)"):
        assert heading in out
    for name in ("greedy@1", "random@1", "greedy-2@1", "random-2@1"):
        assert name in out
    assert "wins by seat" in out
    verified = manage(root, env, "replay", "verify", "--all")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "8 verified, 0 mismatched" in verified.stdout
