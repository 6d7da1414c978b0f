"""A worker's own health: one that keeps failing matches for infrastructure causes stops taking them.

A worker with a broken host (its temporary directory's disk full, a sandbox that cannot start) fails each match
in milliseconds, so it would take most messages and burn every match's attempts. After LUDUS_WORKER_FAILURE_LIMIT
infrastructure failures in a row, the worker (1) stops consuming the match queue (a cancel_consumer sent to its own
node), (2) gives back the attempts it cost (services.refund_failures: matches it failed for good are queued again),
(3) says why: an ERROR log line, the metric ludus_worker_unhealthy, and a marker file that `python -m
workers.health` (the container's healthcheck) turns into a red check. A restart of the worker clears it.

At start, a worker whose configured LUDUS_SANDBOX_PYTHON cannot run bots refuses to start, in one line naming the
setting (refuse_broken_sandbox), rather than saying ready and failing its first matches.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from pathlib import Path

from django.conf import settings

from workers import metrics

logger = logging.getLogger(__name__)


class Breaker:
    """Counts a worker process's infrastructure failures in a row; trips once at the limit."""

    def __init__(self) -> None:
        self.in_a_row = 0
        self.tripped = False

    def record(self, outcome: str) -> bool:
        """Count one run's outcome; True exactly when this run trips the breaker."""
        if outcome == "finished":
            self.in_a_row = 0
        elif outcome in ("requeued", "failed"):
            self.in_a_row += 1
        if self.tripped or self.in_a_row < settings.LUDUS_WORKER_FAILURE_LIMIT:
            return False
        self.tripped = True
        return True


BREAKER = Breaker()


NODE = ""  # set in the worker's main process at start (config/celery.py); the pool children inherit it


def node_name() -> str:
    """The Celery node this process serves (`name@host`), or the host outside a Celery worker."""
    return NODE or socket.gethostname()


def marker(node: str) -> Path:
    return Path(settings.BASE_DIR) / "var" / f"worker-unhealthy-{node.replace('/', '_')}"


def after_run(outcome: str, cause: str) -> None:
    """Called by the task after each match: trip the breaker on too many infrastructure failures in a row."""
    if not BREAKER.record(outcome):
        return
    node = node_name()
    why = (f"{BREAKER.in_a_row} infrastructure failures in a row; last: {(cause.splitlines() or [''])[0]}")
    logger.error("worker %s stops taking matches: %s", node, why)
    from tournaments.services import refund_failures  # not at the top: `python -m workers.health` has no Django yet

    metrics.UNHEALTHY.labels("infrastructure failures in a row").set(1)
    try:
        path = marker(node)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(why + "\n")
    except OSError:  # the broken disk may be this one: the log line and the metric still say it
        logger.exception("worker %s could not write its unhealthy marker", node)
    for step in (_stop_consuming, refund_failures):  # each on its own: a broker or database hiccup spares the other
        try:
            step(node)
        except Exception:
            logger.exception("worker %s: %s failed", node, step.__name__)


def sandbox_python_problem() -> str | None:
    """Why the configured LUDUS_SANDBOX_PYTHON cannot run bots, in one line; None when it can, or when unset (the
    sandbox then picks an interpreter itself)."""
    import subprocess

    from workers.sandbox.bwrap import find_interpreter, is_world_usable

    python = settings.LUDUS_SANDBOX_PYTHON
    if not python:
        return None
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        return f"LUDUS_SANDBOX_PYTHON={python} is not an executable file"
    if not is_world_usable(python):
        return f"LUDUS_SANDBOX_PYTHON={python} cannot be run by the sandbox's unprivileged uids (check its permissions)"
    try:
        find_interpreter(python)
    except subprocess.CalledProcessError as exc:
        said = ((exc.stderr or "").strip().splitlines() or [f"exit status {exc.returncode}"])[-1]
        return f"LUDUS_SANDBOX_PYTHON={python} is not a usable Python 3: it failed the sandbox's probe ({said})"
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:  # ValueError: its output was not the probe's JSON
        return f"LUDUS_SANDBOX_PYTHON={python} is not a usable Python 3: {type(exc).__name__}"
    return None


def refuse_broken_sandbox() -> None:
    """At worker start: a worker whose sandbox cannot run bots never says ready; it exits with one line."""
    problem = sandbox_python_problem()
    if problem is not None:
        raise SystemExit(f"ludus worker refuses to start: {problem}")


def _stop_consuming(node: str) -> int:
    from celery import current_app  # not at the top: the healthcheck never loads Celery

    if "@" in node:  # the worker's own app (config/celery.py, above this package) is the current one in a worker
        current_app.control.cancel_consumer(settings.CELERY_TASK_DEFAULT_QUEUE, destination=[node])
    return 0


def check(node: str) -> int:
    """The healthcheck: 0 when this node has not stopped itself, else 1 with the reason."""
    path = marker(node)
    if path.exists():
        print(f"worker {node} stopped taking matches: {path.read_text().strip()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    import django

    django.setup()  # DJANGO_SETTINGS_MODULE comes from the environment (the image sets it: Dockerfile)
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else node_name()))
