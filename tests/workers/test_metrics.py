"""The metrics an operator watches, read after a real match: a real Celery worker, PostgreSQL, Redis and bwrap.

The worker serves its pool's counts on LUDUS_METRICS_PORT (multiprocess mode); the web's /metrics reads the
database and the broker's queues. A bot that sleeps past its clock gives a timeout fault and a sandbox kill.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families
from testkit import ROOT, clear_queues, free_port, start_celery_worker, stop_process, subprocess_env, wait_until

from tournaments.models import Bot, BotVersion, Match, Tournament
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.sandbox]

SLEEPER = b"import time\nimport ludus\n\n\ndef act(view, decision):\n    time.sleep(30)\n    return 0\n\n\n" \
          b"ludus.run(act)\n"
PHASES = {"claim", "load", "spawn", "start", "play", "finish", "verify", "record"}


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text page, by name and sorted labels."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def families(text: str) -> set[str]:
    return {s.name for family in text_string_to_metric_families(text) for s in family.samples}


@pytest.fixture
def metrics_worker(celery_broker_url: str, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A worker with its metrics on a free port and JSON logs; yields the port and the log's path."""
    clear_queues(celery_broker_url)
    port, log_path = free_port(), tmp_path / "worker.log"
    env = subprocess_env(CELERY_BROKER_URL=celery_broker_url, LUDUS_METRICS_PORT=str(port), LOG_FORMAT="json",
                         LOG_LEVEL="INFO", PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "prometheus"))
    worker = start_celery_worker(f"metrics-{port}", env, log_path)
    try:
        wait_until(lambda: worker.poll() is not None or " ready." in log_path.read_text(), 120, "the worker to start")
        assert worker.poll() is None, log_path.read_text()[-3000:]
        yield port, log_path
    finally:
        stop_process(worker)


@pytest.fixture
def sleeper(alice: Any) -> BotVersion:
    bot = Bot.objects.create(owner=alice, name="sleeper", game="evolution")
    return BotVersion.objects.create(bot=bot, number=1, source=SLEEPER, filename="sleeper.py",
                                     status=BotVersion.Status.ACTIVE)


def scrape_worker(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        return str(response.read().decode())


def test_the_metrics_after_a_real_match(
    metrics_worker: tuple[int, Path], sleeper: BotVersion, builtin_versions: dict[str, Any], alice: Any,
    settings: Any, celery_broker_url: str,
) -> None:
    port, log_path = metrics_worker
    settings.CELERY_BROKER_URL = celery_broker_url
    played = create_tournament([sleeper, builtin_versions["greedy"]], name="clocked", game="evolution",
                               players_per_table=2, seed=3, move_ms=200, bank_ms=0, created_by=alice)
    [match] = start_tournament(played)
    wait_until(lambda: "ludus_worker_runs_total{outcome=\"finished\"}" in scrape_worker(port), 300,
               "the worker to count the finished match")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    # The tournament ends once the match's replay is verified (a task of its own, after the result)
    wait_until(lambda: Tournament.objects.get(pk=played.pk).state == Tournament.State.FINISHED, 60,
               "the tournament to finish once its replay is verified")
    worker = samples(scrape_worker(port))
    assert worker[("ludus_worker_runs_total", (("outcome", "finished"),))] == 1
    for phase in PHASES:
        assert worker[("ludus_match_phase_seconds_count", (("phase", phase),))] == 1, phase
    assert worker[("ludus_bot_faults_total", (("code", "timeout"),))] == 1
    assert worker[("ludus_sandbox_kills_total", (("cause", "timeout"),))] == 1

    waiting = create_tournament([builtin_versions["greedy"], builtin_versions["random"]], name="waiting",
                                game="evolution", players_per_table=2, seed=4, created_by=alice)
    [queued] = start_tournament(waiting, enqueue=False)  # recorded, but no message sent yet
    web_text = Client().get("/metrics").content.decode()
    web = samples(web_text)
    assert web[("ludus_matches_finished_total", (("game", "evolution"), ("status", "finished")))] == 1
    assert web[("ludus_matches_open", (("game", "evolution"), ("status", "queued")))] == 1
    waiting_label = (("competition", f"tournament:{waiting.pk}"), ("game", "evolution"))
    assert web[("ludus_rating_pending_matches", waiting_label)] == 1
    assert web[("ludus_rating_lag_seconds", waiting_label)] >= 0
    assert ("ludus_rating_pending_matches", (("competition", f"tournament:{played.pk}"), ("game", "evolution"))) \
        not in web  # finished: nothing waits
    assert web[("ludus_broker_up", ())] == 1
    assert web[("ludus_queue_depth", (("queue", settings.CELERY_TASK_DEFAULT_QUEUE),))] == 0

    dashboard = (ROOT / "deploy" / "grafana" / "dashboards" / "ludus.json").read_text()
    exported = families(web_text) | families(scrape_worker(port))
    assert set(re.findall(r"ludus_[a-z_]+", dashboard)) <= exported

    logged = [json.loads(line) for line in log_path.read_text().splitlines() if line.startswith("{")]
    assert any(entry["logger"] == "workers.runner" and entry["message"].startswith(f"match {match.pk} finished")
               and entry["level"] == "INFO" for entry in logged)


def test_the_queue_depth_counts_what_no_worker_took(settings: Any, celery_broker_url: str,
                                                    builtin_versions: dict[str, Any], alice: Any) -> None:
    from workers.tasks import run_match_task

    clear_queues(celery_broker_url)
    settings.CELERY_BROKER_URL = celery_broker_url
    tournament = create_tournament([builtin_versions["greedy"], builtin_versions["random"]], name="backlog",
                                   game="evolution", players_per_table=2, seed=5, created_by=alice)
    [match] = start_tournament(tournament, enqueue=False)
    for _ in range(3):
        run_match_task.delay(match.pk)
    web = samples(Client().get("/metrics").content.decode())
    assert web[("ludus_queue_depth", (("queue", settings.CELERY_TASK_DEFAULT_QUEUE),))] == 3
    clear_queues(celery_broker_url)


def test_prometheus_may_scrape_by_an_address_that_allowed_hosts_does_not_list(db: None) -> None:
    assert Client().get("/metrics", HTTP_HOST="10.1.2.3:8000").status_code == 200
    assert Client().get("/", HTTP_HOST="10.1.2.3:8000").status_code == 400  # the rest of the site still checks


def test_it_answers_only_get(db: None) -> None:
    assert Client().post("/metrics").status_code == 405


def test_the_broker_down_is_a_figure_not_an_error(settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    response = Client().get("/metrics")
    assert response.status_code == 200
    assert samples(response.content.decode())[("ludus_broker_up", ())] == 0


@pytest.mark.parametrize(("header", "status"), [
    (None, 401), ("Bearer wrong", 401), ("s3cret", 401), ("Bearer s3cret", 200)])
def test_it_asks_for_the_metrics_token_when_one_is_set(settings: Any, header: str | None, status: int) -> None:
    settings.LUDUS_METRICS_TOKEN = "s3cret"
    headers: dict[str, str] = {"HTTP_AUTHORIZATION": header} if header else {}
    response = Client().get("/metrics", **headers)  # type: ignore[arg-type]
    assert response.status_code == status
    assert (b"ludus_matches_finished" in response.content) == (status == 200)


@pytest.mark.parametrize(("port", "error"), [
    ("9100", "environment variable LUDUS_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR"),
    ("http", "environment variable LUDUS_METRICS_PORT must be an integer, got 'http'"),
    ("70000", "environment variable LUDUS_METRICS_PORT must be at most 65535, got 70000"),
])
def test_a_worker_refuses_a_bad_metrics_setting(port: str, error: str, celery_broker_url: str,
                                                subprocess_env: Callable[..., dict[str, str]]) -> None:
    env = subprocess_env(CELERY_BROKER_URL=celery_broker_url, LUDUS_METRICS_PORT=port)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    run = subprocess.run([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo",
                          "--without-gossip", "--without-mingle"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0
    assert error in run.stderr


@pytest.mark.parametrize(("name", "value", "error"), [
    ("LOG_FORMAT", "xml", "environment variable LOG_FORMAT must be one of text, json, got 'xml'"),
    ("LUDUS_BEAT_LOCK_SECONDS", "soon", "environment variable LUDUS_BEAT_LOCK_SECONDS must be an integer"),
    ("LUDUS_BEAT_LOCK_SECONDS", "1", "environment variable LUDUS_BEAT_LOCK_SECONDS must be at least 3, got 1"),
])
def test_it_refuses_a_bad_operations_setting(name: str, value: str, error: str,
                                             subprocess_env: Callable[..., dict[str, str]]) -> None:
    run = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, capture_output=True,
                         text=True, env=subprocess_env(**{name: value}), timeout=120)
    assert run.returncode != 0
    assert error in run.stderr
