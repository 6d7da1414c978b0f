"""A worker with warm seats that stops leaves no seat behind (docs/bots.md, "Warm seats").

Parked seats are frozen sandboxes: a frozen task does not act on the parent-death signal, so a worker that stopped
without closing its pool left them running (frozen, in state D, under the host's init), their control groups, their
seat dirs, and, with its uid leases gone with it, their uids free for a new seat. On a clean stop (`kill -TERM`) the
worker closes its pool; what a dead worker (`kill -9`) left, the next worker's sweep removes before any seat can
lease its uid.
"""

from __future__ import annotations

import os
import re
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest
from faultkit import wait_until

from tournaments.models import Bot, BotVersion, Match
from tournaments.scheduling import create_tournament, start_tournament
from workers.sandbox.bwrap import pids_of_uid
from workers.sandbox.seat_host import cgroup_host

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox, pytest.mark.skipif(os.geteuid() != 0, reason="finds each seat by its own uid")]

SAYS_ITS_UID = (b"import os, sys, ludus\nprint('uid', os.getuid(), file=sys.stderr, flush=True)\n"
                b"ludus.run(lambda v, d: 0)\n")


def uid_bots(owner: Any) -> list[BotVersion]:
    versions = []
    for name in ("left", "right"):
        bot = Bot.objects.create(owner=owner, name=name, game="evolution")
        versions.append(BotVersion.objects.create(bot=bot, number=1, source=SAYS_ITS_UID + f"# {name}\n".encode(),
                                                  filename="bot.py", status=BotVersion.Status.ACTIVE))
    return versions


def played_and_parked(worker_pool: Any, broker_url: str, owner: Any) -> list[int]:
    """A match of two uploaded bots on a worker with warm seats; the uids of its two seats, parked after it."""
    worker_pool.start("warm", broker_url, LUDUS_WARM_SEATS="2")
    tournament = create_tournament(uid_bots(owner), name="warm", game="evolution", players_per_table=2, seed=5,
                                   created_by=owner)
    [match] = start_tournament(tournament)

    def finished() -> Match | None:
        match.refresh_from_db()
        return match if match.status == "finished" else None

    wait_until(finished, 240, "the match to be played")
    uids = [int(re.findall(r"^uid (\d+)$", seat.log, re.M)[0]) for seat in match.seats.order_by("number")]
    assert all(pids_of_uid(uid) for uid in uids), "both seats are parked, alive"
    return uids


def left_behind(uids: list[int]) -> dict[str, Any]:
    """What is left of these seats on the host: processes, seat dirs, control groups."""
    host = cgroup_host("optional")
    return {
        "processes": {uid: pids_of_uid(uid) for uid in uids if pids_of_uid(uid)},
        "dirs": [entry.path for entry in os.scandir(tempfile.gettempdir()) if entry.name.startswith("ludus-")
                 and entry.stat(follow_symlinks=False).st_uid in uids],
        "groups": [str(d) for uid in uids for d in (host.dirs(f"seat-{uid}").values() if host else ()) if d.exists()],
    }


def test_a_worker_stopped_with_term_closes_its_warm_seats(redis_server: Any, worker_pool: Any, alice: Any,
                                                          fault_settings: Any) -> None:
    uids = played_and_parked(worker_pool, redis_server.url, alice)
    [worker] = worker_pool.workers
    worker.process.send_signal(signal.SIGTERM)  # `kill -TERM` of the worker's main process: a warm shutdown
    assert worker.process.wait(timeout=120) == 0
    assert left_behind(uids) == {"processes": {}, "dirs": [], "groups": []}, worker.log()[-3000:]


def test_what_a_killed_worker_left_is_removed_by_the_next_worker(redis_server: Any, worker_pool: Any, alice: Any,
                                                                 fault_settings: Any) -> None:
    uids = played_and_parked(worker_pool, redis_server.url, alice)
    [worker] = worker_pool.workers
    worker.signal(signal.SIGKILL)  # the main process and its pool child: nobody closes anything
    worker.process.wait(timeout=60)
    assert left_behind(uids)["dirs"], "a killed worker leaves its seats' dirs"
    worker_pool.start("next", redis_server.url)
    assert left_behind(uids) == {"processes": {}, "dirs": [], "groups": []}
    assert Path(tempfile.gettempdir()).is_dir()
