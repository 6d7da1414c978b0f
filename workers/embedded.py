"""The embedded runner: a local process pool inside manage.py that calls the same run_match
(docs/architecture.md#the-system-in-one-picture).

Used when CELERY_BROKER_URL is unset. Children are spawned, not forked, so none inherits the parent's open
database connection; each sets Django up itself from the same environment.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

logger = logging.getLogger(__name__)
_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()
_in_pool_worker = False
_futures: list[Future[str]] = []
_child_backlog: list[int] = []  # matches a pool child queued itself to play after its own (a version test's batch)
_child_verifications: list[int] = []  # matches whose replays the child verifies once its match is done
MAX_RUNS = 10  # a requeued match is retried in the same child; the runner itself caps attempts


def _die_with_parent(parent: int) -> None:
    """Exit once manage.py is gone, even if it died by a signal that skipped the pool's shutdown.

    A polling thread rather than prctl(PR_SET_PDEATHSIG): that fires when the *thread* that started the child
    ends, and the pool may be started from a short-lived request thread of the web server.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _init_child(database: dict[str, Any], parent: int) -> None:
    global _in_pool_worker
    _in_pool_worker = True
    _die_with_parent(parent)
    import django  # the settings module is the parent's: DJANGO_SETTINGS_MODULE is inherited
    from django.conf import settings

    # The parent's database as it is now, which a test run may have renamed since the environment was read.
    # Set before setup: the connection handler reads DATABASES once, on first use.
    settings.DATABASES["default"] = database
    django.setup()


def _run(match_id: int) -> str:
    outcome = _run_one(match_id)
    while _child_backlog:  # a version test's next batch, queued by the game that ended its last one
        _run_one(_child_backlog.pop(0))
    return outcome


def _run_one(match_id: int) -> str:
    from workers.runner import run_match  # not at the top: a spawned child imports this module before Django is set up

    outcome = run_match(match_id)
    for _ in range(MAX_RUNS):
        if outcome != "requeued":
            break
        outcome = run_match(match_id)
    _verify_recorded()
    return outcome


def verify_after(match_id: int) -> None:
    """In a pool child: verify the match's replay once the run that recorded it is over (docs/architecture.md#replays:
    off the match's path, as a worker's verification task)."""
    _child_verifications.append(match_id)


def _verify_recorded() -> None:
    """The replays this child recorded, verified; then any left verifying by a child that stopped before it verified
    (there is no beat here to sweep them)."""
    from django.conf import settings

    from replays.verification import sweep_unverified, verify_replay  # as in _run_one

    try:
        while _child_verifications:
            verify_replay(_child_verifications.pop(0))
        sweep_unverified(settings.LUDUS_VERIFY_SWEEP_SECONDS)
    except Exception:  # the next match's run verifies what is left, by the sweep
        logger.exception("verifying replays in the embedded runner failed")


def pool() -> ProcessPoolExecutor:
    """The process pool, started on first use with LUDUS_WORKER_CONCURRENCY workers."""
    global _pool
    with _lock:
        if _pool is None:
            from django.conf import settings
            from django.db import connections

            _pool = ProcessPoolExecutor(
                max_workers=settings.LUDUS_WORKER_CONCURRENCY,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_child,
                initargs=(dict(connections["default"].settings_dict), os.getpid()),
            )
            atexit.register(shutdown)
        return _pool


def is_pool_child() -> bool:
    """Whether this process is one of the embedded pool's children (which exist only without a broker in use, even
    when the environment they were spawned from names one)."""
    return _in_pool_worker


def submit_match(match_id: int, play_in_child: bool = False) -> Future[str] | None:
    """Run the match in the pool. Inside a pool child it does nothing (the child's _run loop retries requeues),
    unless play_in_child: a version test's batch, which the child plays once its own match is done (there is no
    beat here to send it)."""
    if _in_pool_worker:
        if play_in_child:
            _child_backlog.append(match_id)
        return None
    future = pool().submit(_run, match_id)
    _futures.append(future)
    return future


def submit_analysis(analysis_id: int) -> Future[str] | None:
    """Run a match analysis to its end in the pool (docs/analysis.md); inside a pool child, in the child."""
    if _in_pool_worker:
        _analyse(analysis_id)
        return None
    future = pool().submit(_analyse, analysis_id)
    _futures.append(future)
    return future


def _analyse(analysis_id: int) -> str:
    from replays.analysis_jobs import run_to_end  # not at the top: as in _run_one

    return run_to_end(analysis_id)


def errors() -> list[BaseException]:
    """Exceptions that escaped run_match in a child (a crash, not a failed match: those are in the database)."""
    done = [f.exception() for f in _futures if f.done() and not f.cancelled()]
    return [exc for exc in done if exc is not None]


def shutdown(wait: bool = True) -> None:
    """Stop the pool: let the matches and analyses in flight end (wait), or stop their processes at once, as a
    killed worker's would be (the reaper requeues a match whose lease runs out, and an analysis resumes where it
    stopped). Work not yet started is dropped either way."""
    global _pool
    with _lock:
        if _pool is not None:
            # Not pool.terminate_workers(): it comes with Python 3.14; the pool's children are its _processes.
            children = [] if wait else list((getattr(_pool, "_processes", None) or {}).values())
            stopped = {id(future) for future in _futures if not future.done()} if children else set()
            for child in children:
                child.terminate()
            _pool.shutdown(wait=True, cancel_futures=True)
            # Work stopped here did not crash: errors() reports what escaped run_match, not this.
            _futures[:] = [future for future in _futures if id(future) not in stopped]
            _pool = None
            _stop_resource_tracker()


def _stop_resource_tracker() -> None:
    """The spawn context's resource tracker outlives the pool; stop it too, so no helper process is left behind.

    It starts again on demand (multiprocessing calls ensure_running) when a new pool needs it.
    """
    from multiprocessing import resource_tracker

    stop = getattr(resource_tracker._resource_tracker, "_stop", None)
    if callable(stop):
        stop()
