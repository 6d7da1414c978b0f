"""The Celery app, configured from Django settings under the CELERY_ namespace (`celery -A config worker`)."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import task_prerun, worker_init, worker_process_shutdown, worker_shutdown
from django.conf import settings
from django.db import connections

from workers import health
from workers.metrics import serve
from workers.sandbox.config import SandboxConfig
from workers.sandbox.seat_host import prepare_worker
from workers.sandbox.warm_pool import POOL

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("ludus", include=["workers.tasks"])
# The shared tasks (workers/tasks.py) send through Celery's current app, which is per thread: the app made here is
# current only in the thread that imported this module first. Every other thread (a web server's, a test's live
# server) would fall back to Celery's default app, its default queue ("celery") and no worker.
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")


@worker_init.connect
def _sweep_sandbox_leftovers(**_: object) -> None:
    """At worker start: remove what a worker killed with SIGKILL left (seat processes, dirs, control groups)."""
    health.refuse_broken_sandbox()
    config = SandboxConfig()
    prepare_worker(config.uid_base, config.uid_count, config.lock_dir)


@worker_init.connect
def _name_the_node(sender: object = None, **_: object) -> None:
    """The pool children learn their node's name (workers/health.py); a fresh start clears an unhealthy marker."""
    hostname = getattr(sender, "hostname", None)
    if hostname:
        health.NODE = hostname
        health.marker(hostname).unlink(missing_ok=True)


@worker_init.connect
def _serve_metrics(**_: object) -> None:
    """The worker's Prometheus endpoint, from its main process before the pool forks (workers/metrics.py)."""
    if settings.LUDUS_METRICS_PORT:
        serve(settings.LUDUS_METRICS_PORT)


@worker_process_shutdown.connect  # a prefork pool child, which plays the matches, as it exits
@worker_shutdown.connect  # the main process, which plays them itself in the solo and threads pools
def _close_warm_seats(**_: object) -> None:
    """A worker that stops retires its warm seats (docs/bots.md, "Warm seats"): parked, they are frozen, and a frozen
    seat does not act on the parent-death signal that would otherwise end it with its worker."""
    POOL.close()


@worker_process_shutdown.connect
@worker_shutdown.connect
def _send_waiting_verifications(**_: object) -> None:
    """The verifications a stopping worker's sender thread still holds go out before it exits (workers/sender.py)."""
    from workers.dispatch import flush_verifications  # the runners, loaded only where they run

    flush_verifications()


@task_prerun.connect
def _close_a_broken_connection(**_: object) -> None:
    """The database connections are kept from task to task (settings.CELERY_DB_REUSE_MAX): one that the last task left
    in a transaction, or broken (a database that restarted or cut it), is closed, and this task opens a new one."""
    for connection in connections.all(initialized_only=True):
        if connection.connection is None:
            continue
        if not connection.get_autocommit() or (connection.errors_occurred and not connection.is_usable()):
            connection.close()
        else:
            connection.errors_occurred = False
