"""Workers as if on separate machines (own code copy, working directory, TMPDIR, HOME) need only PostgreSQL and
Redis in common: benchmarks/separate_workers.py, run small."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.sandbox]


def test_workers_sharing_only_postgresql_and_redis_run_every_match_once(repo_root: Path, tmp_path: Path) -> None:
    from django.conf import settings

    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    server = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/postgres"
    report_path = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.separate_workers", "-n", "12", "--machines", "3", "--server", server,
         "--json", str(report_path)],
        cwd=repo_root, capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_path.read_text())
    assert report["ok"]
    assert all(count > 0 for count in report["matches_by_machine"].values())
    assert report["exactly_once"]["finished"] == report["exactly_once"]["replays"] == 12
    for home in report["homes"].values():
        assert home["imports"].startswith(home["code"])
