"""Settings for uploads and the sandbox are read strictly: production refuses to run uploads unsandboxed."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from testkit import read_settings


def load_settings(**env: str) -> dict[str, Any]:
    """The settings as a new process reads them with exactly these variables on top of a clean production base."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LUDUS_", "DEBUG", "SECRET_KEY", "DATABASE"))}
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x" * 50, "DEBUG": "0"}, **env)
    return read_settings(base)


def test_production_refuses_to_run_uploads_unsandboxed() -> None:
    with pytest.raises(ImproperlyConfigured, match="LUDUS_SANDBOX=none runs uploaded code unsandboxed"):
        load_settings(LUDUS_SANDBOX="none")


def test_debug_allows_no_sandbox_and_production_defaults_to_bwrap() -> None:
    assert load_settings(LUDUS_SANDBOX="none", DEBUG="1")["LUDUS_SANDBOX"] == "none"
    assert load_settings()["LUDUS_SANDBOX"] == "bwrap"


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("LUDUS_UPLOAD_RATE", "lots", "LUDUS_UPLOAD_RATE must look like 20/hour"),
    ("LUDUS_UPLOAD_MAX_FILES", "1000", "LUDUS_UPLOAD_MAX_FILES must be at most 256"),
    ("LUDUS_UPLOAD_MAX_UNPACKED_BYTES", "big", "LUDUS_UPLOAD_MAX_UNPACKED_BYTES must be an integer"),
    ("LUDUS_UPLOAD_MAX_BYTES", "0", "LUDUS_UPLOAD_MAX_BYTES must be at least 1"),
])
def test_bad_upload_limits_stop_start_up_naming_the_variable(variable: str, value: str, message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
        load_settings(**{variable: value})
