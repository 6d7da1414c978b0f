"""Fixtures of the API tests: the world of tests/api/apiworld.py, a clean throttle cache, short feeds."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
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


@pytest.fixture(scope="module")
def build_world() -> Callable[[], World]:
    """How this module's world is built (a module that adds to the world overrides this fixture)."""
    from django.contrib.auth import get_user_model

    return lambda: make_world(get_user_model())


@pytest.fixture(scope="module")
def module_world(request: pytest.FixtureRequest, build_world: Callable[[], World], django_db_setup: None,
                 django_db_blocker: Any) -> Iterator[World | None]:
    """The world built once for a module, in a transaction that is rolled back at the module's end.

    Each test runs in a savepoint inside that transaction (pytest-django's `db` nests in it as in Django's
    TestCase.setUpTestData), so what one test writes is gone before the next: the tests stay independent, and a
    module of hundreds of tests does not build hundreds of worlds. A test that commits (transaction=True,
    transactional_db, live_server) cannot run inside a transaction: a module that has one gets None here, and each
    of its tests builds its own world."""
    from django.db import transaction

    mine = [item for item in request.session.items if getattr(item, "module", None) is request.module]
    if any(is_transactional(item) for item in mine):
        yield None
        return
    with django_db_blocker.unblock():
        block = transaction.atomic()
        block.__enter__()
        try:
            world = build_world()
        except BaseException:
            transaction.set_rollback(True)
            block.__exit__(None, None, None)
            raise
    yield world
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        block.__exit__(None, None, None)


def is_transactional(item: pytest.Item) -> bool:
    """Whether the test commits (pytest-django runs it in a TransactionTestCase)."""
    marker = item.get_closest_marker("django_db")
    committing = marker is not None and bool(marker.kwargs.get("transaction") or (marker.args and marker.args[0]))
    fixtures = set(getattr(item, "fixturenames", ()))
    return committing or bool(fixtures & {"transactional_db", "live_server", "django_db_reset_sequences"})


@pytest.fixture
def world(db: None, module_world: World | None, build_world: Callable[[], World]) -> World:
    """A copy of the module's world (a test that changes one of its objects in memory changes only its own), or a
    world of the test's own in a module whose tests commit."""
    return build_world() if module_world is None else copy.deepcopy(module_world)
