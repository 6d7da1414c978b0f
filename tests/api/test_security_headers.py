"""Production (DEBUG=0) as the README runs it: `manage.py check --deploy` finds nothing to warn about, pages carry a
Content-Security-Policy and, over HTTPS (a trusted proxy's X-Forwarded-Proto), HSTS; `/metrics` answers only with
LUDUS_METRICS_TOKEN's bearer token, and refuses everyone, naming the setting, while no token is set."""

from __future__ import annotations

import http.client
import secrets
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from liveserver import REQUEST_TIMEOUT_S, start_server
from testkit import ROOT, stop_process, subprocess_env

pytestmark = [pytest.mark.integration]
TOKEN = "metrics-" + "7" * 24


def production(**env: str) -> dict[str, str]:
    return {"DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50), "LUDUS_ENV_FILE": "", **env}


def test_check_deploy_finds_nothing_in_production() -> None:
    run = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT,
                         env=subprocess_env(**production()), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "no issues" in run.stdout, run.stdout + run.stderr


@pytest.fixture
def server(request: Any, celery_broker_url: str, tmp_path: Any) -> Iterator[int]:
    env = production(LUDUS_TRUSTED_PROXIES="127.0.0.1", **getattr(request, "param", {}))
    process, port, log = start_server(tmp_path, celery_broker_url, workers=1, **env)
    try:
        yield port
    finally:
        stop_process(process)
        log.close()


def get(port: int, path: str, **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
    connection.request("GET", path, headers={"Host": "127.0.0.1", **headers})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.mark.django_db(transaction=True)
def test_pages_carry_a_policy_and_https_answers_carry_hsts(server: int) -> None:
    secure = get(server, "/", **{"X-Forwarded-Proto": "https"})
    assert secure.status == 200
    assert "max-age=31536000" in secure.headers["Strict-Transport-Security"]
    policy = secure.headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'" and directives["frame-ancestors"] == "'none'"
    assert directives["script-src"] == "'self'"  # a page with an inline script adds that script's nonce alone
    plain = get(server, "/")
    assert "Strict-Transport-Security" not in plain.headers  # HSTS only means something over HTTPS
    assert "Content-Security-Policy" in plain.headers


@pytest.mark.django_db(transaction=True)
def test_metrics_refuse_everyone_in_production_without_a_token(server: int) -> None:
    refused = get(server, "/metrics")
    assert refused.status == 403


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("server", [{"LUDUS_METRICS_TOKEN": TOKEN}], indirect=True)
def test_metrics_answer_the_token_in_production(server: int) -> None:
    assert get(server, "/metrics").status == 401
    assert get(server, "/metrics", Authorization="Bearer wrong").status == 401
    assert get(server, "/metrics", Authorization=f"Bearer {TOKEN}").status == 200
