"""`python -m benchmarks.engine` runs and reports, per registered game, the figures the scale plan reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.registry import game_names

ROOT = Path(__file__).resolve().parents[2]


def test_the_engine_benchmark_reports_rates_and_game_times_for_every_game() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.engine", "--games", "1", "--reps", "1", "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]
    assert {(r["game"], r["bot"]) for r in rows} == {(g, b) for g in game_names() for b in ("random", "greedy")}
    for row in rows:
        assert row["decisions_per_sec"] > 0 and row["cpu_decisions_per_sec"] > 0 and row["median_game_ms"] > 0


def test_the_views_benchmark_pairs_a_baseline_checkout_and_refuses_a_directory_that_is_not_one(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "benchmarks.views", "--games", "1", "--reps", "2", "--json"]
    done = subprocess.run([*command, "--baseline", str(ROOT)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]
    assert [r["game"] for r in rows] == ["evolution", "marine"]
    for row in rows:
        assert row["view_us"] > 0 and row["step_us"] > 0 and row["baseline"]["view_us"] > 0
        low, high = row["view_us_over_baseline_range"]
        assert low <= row["view_us_over_baseline"] <= high
    refused = subprocess.run([*command, "--baseline", str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1].endswith(f"--baseline {tmp_path}: not a checkout (no engine/ in it)")
