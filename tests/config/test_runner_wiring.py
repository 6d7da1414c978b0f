"""The apps reach the runners only through what config registers (docs/architecture.md#configuration)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from tournaments import dispatch


def test_the_config_app_registers_the_workers_runner() -> None:
    from workers import dispatch as runners

    assert dispatch.runner() is runners


def test_without_a_registered_runner_dispatch_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatch, "_load_runner", None)
    dispatch.runner.cache_clear()
    try:
        with pytest.raises(ImproperlyConfigured, match="no runner is registered: the `config` app"):
            dispatch.runner()
    finally:
        dispatch.runner.cache_clear()  # the registered one again, for the tests after this one
