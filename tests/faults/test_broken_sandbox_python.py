"""A worker whose LUDUS_SANDBOX_PYTHON is unusable refuses to start, in one line naming the setting: it never says
"ready", so it takes no match (before, it started, failed its first matches, and stopped on a CalledProcessError
that quoted the whole probe script)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from testkit import start_celery_worker, subprocess_env, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration, pytest.mark.sandbox]


@pytest.mark.parametrize("python", ["/bin/false", "/nonexistent/python3", "/etc/hostname"])
def test_a_worker_with_an_unusable_sandbox_python_refuses_to_start_in_one_line(
        python: str, tmp_path: Path, celery_broker_url: str) -> None:
    log: Any = tmp_path / "worker.log"
    process = start_celery_worker("broken-python", subprocess_env(CELERY_BROKER_URL=celery_broker_url,
                                                                  LUDUS_SANDBOX_PYTHON=python), log)
    try:
        wait_until(lambda: process.poll() is not None or " ready." in log.read_text(), 120, "the worker to start")
    finally:
        if process.poll() is None:
            process.kill()
        code = process.wait(timeout=60)
    text = log.read_text()
    assert code != 0 and " ready." not in text and "Traceback" not in text, text[-2000:]
    refusals = [line for line in text.splitlines() if "LUDUS_SANDBOX_PYTHON" in line]
    assert len(refusals) == 1 and python in refusals[0], text[-2000:]
