"""Bad input to the recovery-related tools gets one clear line: recompute_ratings on unknown ids, the API's
tournament fields, and the tournament size cap; and a tournament waits on failed matches until they are requeued."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from tournaments.advancement import advance_tournament
from tournaments.models import Match, Tournament
from tournaments.scheduling import start_tournament
from tournaments.services import claim_match, fail_match, requeue_failed

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("args", "message"), [
    (["--check", "--tournament", "999999"], "no tournament with id 999999: nothing to recompute or check"),
    (["--tournament", "999999", "--tournament", "999998"], "no tournament with id 999998, 999999"),
    (["--check", "--ladder", "999999"], "no ladder with id 999999"),
])
def test_recompute_ratings_refuses_an_unknown_competition(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message) as raised:
        call_command("recompute_ratings", *args, stdout=io.StringIO())
    assert raised.value.returncode == 1


@pytest.fixture
def organiser_client(alice: Any) -> APIClient:
    alice.is_staff = True
    alice.save()
    client = APIClient()
    client.force_authenticate(alice)
    return client


@pytest.mark.parametrize(("field", "value", "message"), [
    ("games_per_set", 0, "Ensure this value is greater than or equal to 1."),
    ("players_per_table", 0, "Ensure this value is greater than or equal to 1."),
    ("max_faults", 0, "Ensure this value is greater than or equal to 1."),
    ("move_ms", 0, "Ensure this value is greater than or equal to 1."),
])
def test_the_api_names_a_bad_tournament_field(organiser_client: APIClient, builtin_versions: dict[str, Any],
                                              field: str, value: int, message: str) -> None:
    body = {"name": "cup", "game": "evolution", "players_per_table": 2, "format": "round_robin",
            "entries": [builtin_versions["greedy"].pk, builtin_versions["random"].pk], field: value}
    response = organiser_client.post("/api/tournaments/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {field: [message]}


def test_the_api_refuses_a_tournament_over_the_size_cap(organiser_client: APIClient, settings: Any,
                                                        builtin_versions: dict[str, Any]) -> None:
    settings.LUDUS_TOURNAMENT_MAX_MATCHES = 10
    entries = [builtin_versions[name].pk for name in ("greedy", "random", "greedy-2", "random-2")]
    body = {"name": "big", "game": "evolution", "players_per_table": 2, "games_per_set": 2, "entries": entries}
    response = organiser_client.post("/api/tournaments/", body, format="json")
    assert response.status_code == 400, response.content
    assert "make 12 matches at once; the limit is 10 (LUDUS_TOURNAMENT_MAX_MATCHES)" in str(response.json())
    assert not Tournament.objects.exists()


def test_a_tournament_waits_on_a_failed_match_until_the_organiser_requeues_it(
    tournament: Any, settings: Any, organiser_client: APIClient
) -> None:
    settings.LUDUS_MATCH_ATTEMPTS = 1
    first, *others = start_tournament(tournament, enqueue=False)
    assert claim_match(first.pk, "broken-worker")
    assert fail_match(first.pk, "broken-worker", "OSError: no space left on device") == "failed"
    Match.objects.filter(pk__in=[m.pk for m in others]).update(status=Match.Status.FINISHED)
    assert advance_tournament(tournament.pk) == "waiting on failed"
    assert Tournament.objects.get(pk=tournament.pk).state == "running"

    response = organiser_client.post(f"/api/tournaments/{tournament.pk}/requeue-failed/")
    assert response.status_code == 200 and response["X-Requeued-Matches"] == "1"
    first.refresh_from_db()
    assert (first.status, first.attempts, first.error) == ("queued", 0, "OSError: no space left on device")
    assert requeue_failed(tournament) == 0  # nothing failed any more


@pytest.mark.django_db(transaction=True)
def test_run_to_end_waits_out_a_database_restart_without_a_traceback(tournament: Any) -> None:
    import psycopg
    from django.db import connection
    from rich.console import Console

    from tournaments.cli import run_to_end

    start_tournament(tournament, enqueue=False)
    Match.objects.filter(tournament=tournament).update(status=Match.Status.FINISHED)
    advance_tournament(tournament.pk)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"],
                         password=db["PASSWORD"] or None, dbname=db["NAME"], autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])  # as a restart does to the command's connection
    output = io.StringIO()
    run_to_end(tournament, Console(file=output, width=120), timeout_s=60)
    assert "Running 6 matches" in output.getvalue()
