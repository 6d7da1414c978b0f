"""The replay store goes down while matches play (docs/operations.md#the-replay-store).

Every match still finishes, exactly once: its replay stays in PostgreSQL, pending, and reads from there meanwhile.
Housekeeping moves nothing while the store is down; once it is back, beat's task (run by the real worker) moves each
pending replay, verified. Nothing is lost: the replay written before the outage and those written during it all read
back through their digests and re-simulate to their recorded outcomes.
"""

from __future__ import annotations

from typing import Any

import pytest
from faultkit import check_one_result_per_match, reap, wait_until
from s3server import s3_replay_store

from replays.models import Replay
from replays.moves import move_pending
from replays.storage import digest_of
from replays.verify import verify_document
from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament
from workers.tasks import move_pending_replays_task

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow,
              pytest.mark.sandbox]


def test_matches_finish_while_the_store_is_down_and_their_replays_move_when_it_is_back(
    redis_server: Any, worker_pool: Any, slow_versions: Any, fault_settings: Any, alice: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with s3_replay_store(fault_settings, monkeypatch) as s3:
        worker = worker_pool.start("a", redis_server.url, **s3.env())
        tournament = create_tournament(slow_versions(3, 0.005), name="store down", game="evolution",
                                       players_per_table=2, seed=11, created_by=alice)
        start_tournament(tournament)  # C(3,2) = 3 matches, one at a time on the one worker
        matches = Match.objects.filter(tournament=tournament)
        replays = Replay.objects.filter(match__tournament=tournament)

        wait_until(lambda: matches.filter(status="finished").exists() and matches.filter(status="running").exists(),
                   600, "a match to finish with the store up, and the next to be playing")
        s3.stop()

        def all_finished() -> bool:
            reap()
            return not matches.exclude(status="finished").exists()

        wait_until(all_finished, 600, "every match to finish while the store is down")
        check_one_result_per_match(list(matches))
        pending = list(replays.filter(pending=True))
        assert pending and all(replay.location == "" and replay.actions for replay in pending)
        assert replays.exclude(location="").exists()  # the one written before the outage
        assert "replay kept in the database, pending" in worker.log()
        for replay in pending:  # readable meanwhile, from the database
            assert verify_document(replay.document())["digest"] == replay.footer["digest"]

        report = move_pending()  # housekeeping while the store is still down: nothing moves, nothing is lost
        assert report.moved == 0 and "replay store failed" in report.unavailable
        assert replays.filter(pending=True).count() == len(pending)

        s3.start()
        move_pending_replays_task.delay()  # beat's housekeeping, run by the worker
        wait_until(lambda: not replays.filter(pending=True).exists(), 120, "housekeeping to move the pending replays")

        stored = s3.objects()
        assert len(stored) == len({replay.digest for replay in replays}) == matches.count()
        for replay in replays:
            assert replay.actions is None and digest_of(stored[replay.location]) == replay.digest
            assert verify_document(replay.document())["digest"] == replay.footer["digest"]
