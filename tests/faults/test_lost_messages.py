"""Lost messages are found by what the broker holds, not by age: a backlog is never sent twice.

The fault: with a backlog, the redispatcher re-sent every match queued longer than a period, each period
(419 refused runs for 220 matches; the queue grew to 505 messages). Now a queued match is sent again only when no
message for it is in the broker, so however old a backlog grows it is left alone, and exactly the lost ones go out
again, ahead of the backlog.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db.models.functions import Now
from faultkit import wait_until

from tournaments.dispatch import PRIORITY_NEW, PRIORITY_RECOVERED
from tournaments.models import Match
from tournaments.scheduling import create_tournament, start_tournament
from workers.broker import live_match_ids, match_ids_of, queue_key
from workers.tasks import send_outbox_task

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_an_old_backlog_is_left_alone_and_only_lost_messages_are_sent_again(
    redis_server: Any, builtin_versions: dict[str, Any], alice: Any, settings: Any
) -> None:
    settings.LUDUS_REDISPATCH_SECONDS = 1
    entrants = [builtin_versions[name] for name in ("greedy", "random", "greedy-2", "random-2")]
    tournament = create_tournament(entrants, name="backlog", game="evolution", players_per_table=2, seed=2,
                                   created_by=alice)
    ids = {match.pk for match in start_tournament(tournament)}  # 6 messages, and no worker: a backlog
    wait_until(lambda: redis_server.queued_matches() == 6, 30, "six queued messages")
    Match.objects.filter(pk__in=ids).update(dispatched_at=Now() - timedelta(hours=1))  # an hour-old backlog

    for _ in range(3):  # three beats
        send_outbox_task()
    assert redis_server.queued_matches() == 6
    assert live_match_ids() == ids

    client = redis_server.client()
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    recovered_key, new_key = queue_key(queue, PRIORITY_RECOVERED), queue_key(queue, PRIORITY_NEW)
    lost = set(match_ids_of(client.rpop(new_key, 2)))  # two messages vanish, as with a worker killed holding them
    assert len(lost) == 2 and live_match_ids() == ids - lost
    send_outbox_task()
    assert redis_server.queued_matches() == 6 and live_match_ids() == ids
    assert set(match_ids_of(client.lrange(recovered_key, 0, -1))) == lost  # sent again ahead of the backlog

    redis_server.kill()  # a restart without persistence: every message is gone
    redis_server.start()
    send_outbox_task()
    assert redis_server.queued_matches() == 4  # the two sent a moment ago are not suspects yet
    Match.objects.filter(pk__in=lost).update(dispatched_at=Now() - timedelta(hours=1))
    send_outbox_task()
    assert redis_server.queued_matches() == 6 and live_match_ids() == ids
