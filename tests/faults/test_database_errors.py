"""Database errors are told apart (tournaments/dberrors.py): a statement timeout and a full disk are the server
refusing a statement, named as such in the logs and never retried as "connection lost"; a cut connection is
reconnected. And a text log line carries its time, level and logger."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection, transaction
from testkit import ROOT, subprocess_env

from tournaments.dberrors import describe, is_connection_lost
from workers.runner import with_db_retry

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def raised(sql: str, *params: Any) -> OperationalError:
    with pytest.raises(OperationalError) as caught, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return caught.value


def test_a_statement_timeout_is_a_refused_statement_named_as_such() -> None:
    error = raised("SET LOCAL statement_timeout = 10; SELECT pg_sleep(1)")
    assert not is_connection_lost(error)
    assert describe(error) == "QueryCanceled: canceling statement due to statement timeout"


def test_a_full_disk_is_a_refused_statement_that_names_the_disk() -> None:
    error = raised("DO $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' "
                   "USING ERRCODE = 'disk_full'; END $$")
    assert not is_connection_lost(error)
    assert describe(error) == "DiskFull: could not extend file: No space left on device"


def test_a_cut_connection_is_a_lost_connection() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with psycopg.connect(**connection.get_connection_params()) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    with pytest.raises(OperationalError) as caught, connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    assert is_connection_lost(caught.value)
    connection.close()


def test_the_runner_does_not_retry_a_refused_statement_as_a_lost_connection(caplog: Any) -> None:
    calls = []

    def timed_out() -> None:
        calls.append(1)
        raise raised("SET LOCAL statement_timeout = 10; SELECT pg_sleep(1)")

    with caplog.at_level(logging.WARNING), pytest.raises(OperationalError):
        with_db_retry(timed_out)
    assert len(calls) == 1
    assert "connection lost" not in caplog.text


def test_a_text_log_line_has_its_time_level_and_logger() -> None:
    code = "import django, logging; django.setup(); logging.getLogger('workers.runner').warning('hello')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env=subprocess_env(DJANGO_SETTINGS_MODULE="config.settings", LOG_FORMAT="text"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} WARNING workers\.runner \d+ hello\n", done.stderr), (
        done.stderr)


def test_run_tournament_under_a_statement_timeout_says_so_in_one_line_and_creates_nothing() -> None:
    from tournaments.models import Match, Tournament

    with psycopg.connect(**connection.get_connection_params()) as holder:  # the insert waits past the timeout
        holder.execute("LOCK TABLE tournaments_tournament IN ACCESS EXCLUSIVE MODE")
        done = subprocess.run(
            [sys.executable, "manage.py", "run_tournament", "--game", "evolution", "--bots", "greedy,random",
             "--players", "2"], cwd=ROOT, capture_output=True, text=True, timeout=120,
            env=subprocess_env(PGOPTIONS="-c statement_timeout=200"))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "statement timeout" in done.stderr, done.stderr
    assert not Tournament.objects.exists() and not Match.objects.exists()
