"""A recovered match jumps the queue, and a message stranded with a dead worker is found and sent again.

The fault: a recovered match went to the back of the queue (almost 8 minutes behind a backlog), and the
messages a `kill -9`ed worker held waited out the 2,100 s visibility timeout. Recovered matches (retries, reaped
leases, lost messages, requeues) are sent at the broker's highest priority; a message delivered to a worker longer
than a lease ago while its match is still queued counts as lost.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db.models.functions import Now
from faultkit import check_one_result_per_match, reap, wait_until

from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament
from tournaments.services import claim_match
from workers.broker import live_match_ids

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.slow]


def test_a_reaped_match_runs_before_the_backlog_queued_ahead_of_it(
    redis_server: Any, worker_pool: Any, builtin_versions: dict[str, Any], fault_settings: Any, alice: Any
) -> None:
    entrants = [builtin_versions[name] for name in ("greedy", "random", "greedy-2", "random-2")]
    tournament = create_tournament(entrants, name="first", game="evolution", players_per_table=2, seed=9,
                                   created_by=alice)
    backlog = start_tournament(tournament)  # 6 messages waiting, no worker yet
    wait_until(lambda: redis_server.queued_matches() == 6, 30, "the backlog's six messages")
    recovered = backlog[-1]  # the last in the queue: a worker took its message, claimed it and vanished
    assert claim_match(recovered.pk, "vanished-worker")
    Match.objects.filter(pk=recovered.pk).update(lease_expires=Now())
    assert reap() == 1  # requeued and sent again, with the broker's highest priority

    worker_pool.start("only", redis_server.url)  # one process: it takes the messages one at a time
    in_tournament = Match.objects.filter(tournament=tournament)
    wait_until(lambda: not in_tournament.exclude(status="finished").exists(), 300, "every match to finish")
    matches = sorted(in_tournament, key=lambda m: m.started_at)
    assert matches[0].pk == recovered.pk, [(m.pk, m.started_at) for m in matches]
    check_one_result_per_match(matches)


def test_a_message_delivered_to_a_worker_that_died_is_sent_again(
    redis_server: Any, builtin_versions: dict[str, Any], fault_settings: Any, alice: Any
) -> None:
    from config.celery import app

    tournament = create_tournament([builtin_versions["greedy"], builtin_versions["random"]], name="held",
                                   game="evolution", players_per_table=2, seed=10, created_by=alice)
    [match] = start_tournament(tournament)
    wait_until(lambda: redis_server.queued_matches() == 1, 30, "the message")
    # A consumer takes the message without acknowledging it and dies: it sits in Redis's unacked hash, where only
    # the visibility timeout would give it back.
    connection = app.connection_for_read()
    held = connection.SimpleQueue(settings.CELERY_TASK_DEFAULT_QUEUE).get(timeout=10)
    assert held is not None and redis_server.queued_matches() == 0
    assert live_match_ids() == {match.pk}  # delivered a moment ago: the holder may be about to claim it
    Match.objects.filter(pk=match.pk).update(dispatched_at=Now() - timedelta(minutes=5))  # sent long ago
    client = redis_server.client()
    [(tag, delivered)] = client.zrange("unacked_index", 0, -1, withscores=True)
    client.zadd("unacked_index", {tag: delivered - fault_settings.LUDUS_LEASE_SECONDS - 1})  # a lease ago
    assert live_match_ids() == set()
    reap()
    assert redis_server.queued_matches() == 1 and live_match_ids() == {match.pk}
    connection.release()
