"""Beat's housekeeping messages piled on the control queue while no worker takes them (each busy with a long match).

Runs each checkout's real `celery beat` for --seconds with every housekeeping task due each second, on a queue of
its own on CELERY_BROKER_URL (Redis) and no worker, then counts the messages waiting on `<queue>.control`. Runs
alternate between the checkouts, --runs times.

    python -m benchmarks.beat_pile --baseline /tmp/old      # this checkout against another, 3 runs of 30 s each
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
FAST = {"LUDUS_REAPER_SECONDS": "1", "LUDUS_LADDER_SECONDS": "1", "LUDUS_FLAG_SECONDS": "1",
        "LUDUS_DISPATCH_SECONDS": "1"}


def piled(checkout: Path, seconds: float, broker: str) -> int:
    """Messages on the control queue after `seconds` of the checkout's beat with no worker."""
    queue = f"beatpile{secrets.token_hex(4)}"
    env = dict(os.environ, LUDUS_QUEUE=queue, LOG_LEVEL="WARNING", CELERY_BROKER_URL=broker, **FAST)
    with tempfile.TemporaryDirectory() as tmp:
        beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=WARNING",
                                 f"--schedule={tmp}/schedule"], cwd=checkout, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(seconds)  # a benchmark's own clock: how long beat runs
        finally:
            beat.terminate()
            beat.wait(timeout=60)
    store = redis.Redis.from_url(broker)
    count = int(store.llen(f"{queue}.control"))
    store.delete(f"{queue}.control")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True, help="the other checkout (e.g. main)")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    counts: dict[str, list[int]] = {"baseline": [], "this": []}
    for _ in range(args.runs):
        counts["baseline"].append(piled(args.baseline, args.seconds, broker))
        counts["this"].append(piled(ROOT, args.seconds, broker))
    for name, values in counts.items():
        print(f"{name}: messages on the control queue after {args.seconds:.0f} s: median "
              f"{statistics.median(values):.0f} (range {min(values)}-{max(values)}), runs {values}")


if __name__ == "__main__":
    main()
