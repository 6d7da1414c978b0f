"""`GET /healthz`: 200 when the database and the broker answer and every migration is applied; else 503, naming what
failed. Each failure is real: a database and a broker on a closed port, a migration unrecorded."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client
from testkit import ROOT, free_port, subprocess_env

pytestmark = pytest.mark.django_db


def healthz(client: Client, **headers: Any) -> tuple[int, dict[str, Any]]:
    response = client.get("/healthz", **headers)
    assert response["Content-Type"] == "application/json" and response["Cache-Control"] == "no-store"
    return response.status_code, response.json()


def test_it_is_healthy_with_the_embedded_runner(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = None
    status, body = healthz(client)
    assert (status, body["status"], body["failed"]) == (200, "ok", [])
    assert body["checks"] == {"database": "ok", "broker": "none configured (embedded runner)", "migrations": "ok"}


def test_it_reaches_a_real_broker(client: Client, settings: Any, celery_broker_url: str) -> None:
    settings.CELERY_BROKER_URL = celery_broker_url
    status, body = healthz(client)
    assert status == 200 and body["checks"]["broker"] == "ok"


def test_it_names_a_broker_it_cannot_reach(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"
    status, body = healthz(client)
    assert (status, body["status"], body["failed"]) == (503, "failing", ["broker"])
    assert body["checks"]["broker"].startswith("failing: unreachable") and body["checks"]["database"] == "ok"


def test_it_names_a_migration_not_applied(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = None
    from django.db.migrations.loader import MigrationLoader

    # The app's latest migration (a hard-coded name goes stale with every new one).
    [latest] = [name for app, name in MigrationLoader(None).graph.leaf_nodes() if app == "tournaments"]
    MigrationRecorder.Migration.objects.filter(app="tournaments", name=latest).delete()
    status, body = healthz(client)
    assert (status, body["failed"]) == (503, ["migrations"])
    assert f"1 not applied: tournaments.{latest}" in body["checks"]["migrations"]


def test_it_names_a_database_it_cannot_reach() -> None:
    """In a process of its own whose DATABASE_URL points at a closed port."""
    script = ("from django.test import Client; import django; django.setup(); r = Client().get('/healthz'); "
              "print(r.status_code, r.content.decode())")
    env = subprocess_env(DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/nowhere", CELERY_BROKER_URL="")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    status, _, body = done.stdout.strip().partition(" ")
    assert status == "503", done.stdout + done.stderr
    answer = json.loads(body)
    assert "database" in answer["failed"] and answer["checks"]["database"].startswith("failing: unreachable")


def test_it_answers_on_any_host_name(client: Client, settings: Any) -> None:
    """The container's own healthcheck asks for 127.0.0.1, which ALLOWED_HOSTS need not list."""
    settings.CELERY_BROKER_URL, settings.ALLOWED_HOSTS = None, ["ludus.example.org"]
    assert healthz(client, HTTP_HOST="127.0.0.1:8000")[0] == 200
    assert client.get("/", HTTP_HOST="127.0.0.1:8000").status_code == 400  # everything else keeps the host check
