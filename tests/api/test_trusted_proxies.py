"""LUDUS_TRUSTED_PROXIES, read by gunicorn.conf.py and the settings: addresses and networks, and a clear error for
anything else (tests/api/test_forwarded_headers.py runs the server with it)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.proxies import trusted_proxies


@pytest.mark.parametrize(("value", "expected"), [
    ("", []), ("10.0.0.1", ["10.0.0.1"]), ("10.0.0.0/8, ::1", ["10.0.0.0/8", "::1"]),
    ("172.16.0.0/12", ["172.16.0.0/12"]),
])
def test_trusted_proxies_reads_addresses_and_networks(monkeypatch: Any, value: str, expected: list[str]) -> None:
    monkeypatch.setenv("LUDUS_TRUSTED_PROXIES", value)
    assert trusted_proxies() == expected


@pytest.mark.parametrize(("value", "message"), [
    ("*", "got '*'"), ("proxy.example.org", "got 'proxy.example.org'"), ("10.0.0.1,", "empty item"),
    ("10.0.0.0/33", "got '10.0.0.0/33'"),
])
def test_trusted_proxies_refuses_anything_else_naming_it(monkeypatch: Any, value: str, message: str) -> None:
    monkeypatch.setenv("LUDUS_TRUSTED_PROXIES", value)
    with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
        trusted_proxies()
