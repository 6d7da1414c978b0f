"""Settings for uploads and the sandbox are read strictly: production refuses to run uploads unsandboxed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_settings(**env: str) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh process with exactly these variables on top of a clean production base."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LUDUS_", "DEBUG", "SECRET_KEY", "DATABASE"))}
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x" * 50, "DEBUG": "0"}, **env)
    code = "import django; django.setup(); from django.conf import settings; print(settings.LUDUS_SANDBOX)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True,
                          timeout=120)


def test_production_refuses_to_run_uploads_unsandboxed() -> None:
    done = load_settings(LUDUS_SANDBOX="none")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and "LUDUS_SANDBOX=none" in done.stderr


def test_debug_allows_no_sandbox_and_production_defaults_to_bwrap() -> None:
    assert load_settings(LUDUS_SANDBOX="none", DEBUG="1").stdout.strip() == "none"
    assert load_settings().stdout.strip() == "bwrap"


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("LUDUS_UPLOAD_RATE", "lots", "LUDUS_UPLOAD_RATE must look like 20/hour"),
    ("LUDUS_UPLOAD_MAX_FILES", "1000", "LUDUS_UPLOAD_MAX_FILES must be at most 256"),
    ("LUDUS_UPLOAD_MAX_UNPACKED_BYTES", "big", "LUDUS_UPLOAD_MAX_UNPACKED_BYTES must be an integer"),
    ("LUDUS_UPLOAD_MAX_BYTES", "0", "LUDUS_UPLOAD_MAX_BYTES must be at least 1"),
])
def test_bad_upload_limits_stop_start_up_naming_the_variable(variable: str, value: str, message: str) -> None:
    done = load_settings(**{variable: value})
    assert done.returncode != 0 and message in done.stderr
