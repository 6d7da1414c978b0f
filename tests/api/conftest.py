"""Fixtures of the API tests: the world of tests/api/apiworld.py, a clean throttle cache, short feeds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from apiworld import World, make_world
from django.core.cache import cache


@pytest.fixture(autouse=True)
def fresh_throttle() -> Iterator[None]:
    cache.clear()  # throttle history lives in the cache
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def short_feeds(settings: Any) -> None:
    """A feed connection ends at its first poll: no test waits on the clock."""
    settings.LUDUS_FEED_SECONDS = 0


@pytest.fixture
def world(db: None, django_user_model: Any) -> World:
    return make_world(django_user_model)
