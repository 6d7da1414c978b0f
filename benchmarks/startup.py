"""What a new process pays to start Django: CPU ms to import the settings, and to run django.setup() (the settings
and the apps), paired with a baseline checkout.

Every process pays it once: a manage.py command, a Celery worker and each of its pool children, a web worker, each
embedded runner process. Each repetition is a fresh process per checkout, alternating, timed with the process's CPU
time (a busy machine inflates it less than the wall clock); the development settings (DEBUG=1, SQLite, no broker,
no local settings file). The table gives medians with their min-max spread, and the paired ratio to the baseline.

    python -m benchmarks.startup                                # this checkout
    git worktree add /tmp/base-startup main
    python -m benchmarks.startup --baseline /tmp/base-startup --reps 30 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import importlib, json, sys, time
clock = time.process_time
import django
start = clock()
importlib.import_module(sys.argv[1])
settings = clock()
django.setup()
print(json.dumps({"settings_ms": (settings - start) * 1e3, "setup_ms": (clock() - start) * 1e3}))
"""


def settings_module(checkout: Path) -> str:
    """The checkout's settings module (before the configuration moved to config/, it was tournaments.settings)."""
    return "config.settings" if (checkout / "config" / "settings.py").is_file() else "tournaments.settings"


def one_rep(checkout: Path) -> dict[str, float]:
    module = settings_module(checkout)
    env = {**os.environ, "DEBUG": "1", "LUDUS_ENV_FILE": "", "DJANGO_SETTINGS_MODULE": module,
           "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": ""}
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-P", "-c", CHILD, module], cwd=checkout, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with, run alternately")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    checkouts = {"this": args.checkout.resolve(), **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    for checkout in checkouts.values():
        one_rep(checkout)  # the bytecode caches written, not timed
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    for _ in range(args.reps):
        for name, checkout in checkouts.items():
            runs[name].append(one_rep(checkout))
    result: dict[str, object] = {name: {key: spread([run[key] for run in rows]) for key in ("settings_ms", "setup_ms")}
                                 for name, rows in runs.items()}
    if args.baseline:
        for key in ("settings_ms", "setup_ms"):
            ratios = [this[key] / base[key] for this, base in zip(runs["this"], runs["baseline"], strict=True)]
            result[f"{key} ratio"] = f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
    print(json.dumps(result, indent=2) if args.json else "\n".join(f"{key}: {value}" for key, value in result.items()))


if __name__ == "__main__":
    main()
