"""`python -m benchmarks.floor` measures a round trip between two processes, on two CPUs and on one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="the floor benchmark compares two CPUs with one")
def test_the_floor_benchmark_reports_each_round_trip_it_times() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.floor", "--reps", "1", "--trips", "50", "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report["us_per_round_trip"]) == {"pipe_two_cpu", "pipe_same_cpu", "json_two_cpu", "json_same_cpu"}
    assert all(row["median"] > 0 for row in report["us_per_round_trip"].values())
    assert 200 < report["decide_bytes"] < 4096  # a real decide line, not an empty one
