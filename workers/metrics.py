"""What a worker counts for Prometheus: match phase durations, run outcomes, bot faults and sandbox kills.

The web's /metrics (tournaments/metrics.py) reads the rest from the database and Redis at scrape time.

A Celery worker runs matches in prefork pool children that come and go (a killed child is replaced), so the
counters use prometheus_client's multiprocess mode: each process writes its values to files under
PROMETHEUS_MULTIPROC_DIR, and the worker's main process serves their sum on LUDUS_METRICS_PORT. One scrape target
per worker whatever its concurrency, and a dead child's counts stay in the sum instead of vanishing (a port per
child would lose them, and change with every replacement). Without PROMETHEUS_MULTIPROC_DIR (the embedded runner,
try_bot, the tests' own process) the values simply live in the process.

Kept free of Django: workers.play imports it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, multiprocess, start_http_server

logger = logging.getLogger(__name__)

# From a claim (milliseconds) to a long game (minutes): the play phase of a full game sits in the upper buckets.
PHASE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0)

PHASE_SECONDS = Histogram(
    "ludus_match_phase_seconds", "Seconds a match spent in each runner phase (claim, load, spawn, start, play, "
    "finish, verify, record)", ["phase"], buckets=PHASE_BUCKETS)
RUNS = Counter("ludus_worker_runs", "Runs of workers.run_match by what came of them", ["outcome"])
FAULTS = Counter("ludus_bot_faults", "Bot faults by code (timeout, bad_json, stale_seq, out_of_range, died...)",
                 ["code"])
# Labelled, so nothing is written to PROMETHEUS_MULTIPROC_DIR at import (the directory may not exist yet then).
UNHEALTHY = Gauge("ludus_worker_unhealthy", "1 once a worker stopped taking matches after infrastructure failures "
                  "in a row (workers/health.py)", ["cause"], multiprocess_mode="max")
SANDBOX_KILLS = Counter("ludus_sandbox_kills", "Sandboxed seats killed by the worker, by cause", ["cause"])


def observe_run(outcome: str, phase_ms: dict[str, float]) -> None:
    """Count one run of a match by its outcome ("finished", "requeued", "lease lost: ..." counts as "lease lost")."""
    RUNS.labels(outcome.split(":", 1)[0]).inc()
    for phase, ms in phase_ms.items():
        PHASE_SECONDS.labels(phase).observe(ms / 1000)


def count_fault(code: str) -> None:
    FAULTS.labels(code).inc()


def count_sandbox_kill(cause: str) -> None:
    """The sandbox killed a seat's processes: timeout, exited, no_hello, bad_upload, lingering, memory..."""
    SANDBOX_KILLS.labels(cause).inc()


def serve(port: int) -> None:
    """In a worker's main process, before the pool starts: empty the multiprocess directory and serve its sum.

    The settings refuse LUDUS_METRICS_PORT without PROMETHEUS_MULTIPROC_DIR.
    """
    directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):  # a previous run's files would be added to this run's counts
        stale.unlink()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    start_http_server(port, registry=registry)
    logger.info("metrics on port %s (multiprocess directory %s)", port, directory)
