"""The client is a package of its own: loading every one of its modules loads nothing of the server. The import
contract in pyproject.toml checks the source; this checks what a fresh interpreter actually loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ["engine", "tournaments", "replays", "workers", "config", "django", "rest_framework", "celery"]


def test_the_client_loads_nothing_of_the_server() -> None:
    modules = sorted(path.stem for path in (ROOT / "ludus_client").glob("*.py"))
    code = (f"import importlib, sys\nfor name in {modules!r}: importlib.import_module('ludus_client.' + name)\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({SERVER!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={"PATH": os.environ.get("PATH", "")})
    assert len(modules) >= 6 and done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
