"""Shared fixtures for the service tests: PostgreSQL only, personas, built-in bots, a toy game, a real Celery worker.

Engine tests (tests/engine/) use none of this and need no database.

The suite runs in parallel (`make test` is `pytest -n auto --dist loadfile --no-loadscope-reorder`): each test file
runs on one xdist worker, so a module-scoped fixture (a Celery worker, a browser) starts once. What keeps the xdist
workers apart:
- each has its own test database (test_<name>_gw0, ...) and its own Celery queues, LUDUS_QUEUE=ludus-test-gw0
  (tests/testenv.py), on the one Redis database of TEST_BROKER_URL. A test that starts a Celery worker passes
  it `subprocess_env(CELERY_BROKER_URL=celery_broker_url)`, which carries both; it never flushes the Redis
  database (`clear_queues` empties this worker's queues), and waits for its own workers by name (`ping_workers`):
  a bare `app.control.ping()` also hears the other xdist workers' Celery workers.
- a server a test starts listens on `free_port()`; a private redis-server likewise (tests/faults/faultkit.py);
- temp files go under pytest's `tmp_path` (per worker), and a check for leftovers looks only at what its own test
  made (tests/workers/test_sandbox.py `temp_dirs_made`), not at what another worker's tests make meanwhile.
(`--dist loadgroup` would group by `xdist_group` marks, but pytest-xdist 3.8 cannot append the group to a pytest 9
node id, so the marks are ignored: files are the unit.)
"""

from __future__ import annotations

import collections
import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import hypothesis_profiles  # noqa: F401 - registers and loads the Hypothesis profile (HYPOTHESIS_PROFILE)
import pytest
from testkit import (
    ROOT,
    clear_queues,
    ping_workers,
    start_celery_worker,
    stop_process,
    subprocess_env,
    wait_until,
    wait_workers_idle,
)

TEST_BROKER_URL = "redis://127.0.0.1:6379/5"  # a dedicated Redis database for tests; each run uses its own queues


def file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with slow tests first, then the files with the most tests: xdist hands out whole files in this order,
    so no long file begins last while the other workers sit idle. Each file stays in one piece, in its own order."""
    slow_files = {file_of(item) for item in items if item.get_closest_marker("slow")}
    sizes = collections.Counter(file_of(item) for item in items)
    items.sort(key=lambda item: (file_of(item) not in slow_files, -sizes[file_of(item)]))


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing() -> Iterator[None]:
    """MD5 instead of PBKDF2 at full strength (about a second per user created): in this process, for tests only."""
    from django.test.utils import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session", autouse=True)
def live_server_without_nagle() -> Iterator[None]:
    """The live server as the demo serves (tournaments/devserver.py): without it, every request a browser or
    schemathesis sends on a kept-alive connection waits about 40 ms for a delayed acknowledgement."""
    from django.test.testcases import LiveServerThread

    from tournaments.devserver import NoDelayThreadedWSGIServer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LiveServerThread, "server_class", NoDelayThreadedWSGIServer)
        yield


@pytest.fixture(scope="session", autouse=True)
def static_files_indexed_once() -> Iterator[None]:
    """WhiteNoise (WHITENOISE_USE_FINDERS) stats and indexes every app's static file when its middleware starts, and
    the test client starts the middleware anew for each client: 20-50 ms a client, a fifth of an API test. Index them
    once per process and configuration, and give each new middleware the same entries, as a server process has them
    (the static files do not change during a run)."""
    from django.conf import settings
    from whitenoise.middleware import WhiteNoiseMiddleware

    index = WhiteNoiseMiddleware.add_files_from_finders
    indexed: dict[tuple[Any, ...], dict[str, Any]] = {}

    def add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
        key = (self.static_prefix, self.max_age, self.allow_all_origins, self.charset, self.add_headers_function,
               repr(settings.STATICFILES_DIRS), tuple(settings.STATICFILES_FINDERS), tuple(settings.INSTALLED_APPS))
        if key not in indexed:  # the entries the finders add (add_file_to_dictionary assigns, so update() is the same)
            files, self.files = self.files, {}
            index(self)
            indexed[key], self.files = self.files, files
        self.files.update(indexed[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WhiteNoiseMiddleware, "add_files_from_finders", add_files_from_finders)
        yield


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Refuse to run service tests on SQLite: they test PostgreSQL's locking and constraints."""
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine:
        pytest.fail(
            f"the service tests need PostgreSQL, but DATABASE_URL selects {engine}. Run `make test`, or set "
            "DATABASE_URL=postgres://postgres@127.0.0.1:5432/ludus (the test database is test_<name>).",
            pytrace=False,
        )


@pytest.fixture
def repo_root() -> Path:
    return ROOT


@pytest.fixture(name="subprocess_env")
def subprocess_env_fixture() -> Callable[..., dict[str, str]]:
    """A function giving the environment for a subprocess on this test database."""
    return subprocess_env


@pytest.fixture(name="wait_until")
def wait_until_fixture() -> Callable[..., Any]:
    return wait_until


@pytest.fixture
def embedded_runner_stopped(settings: Any) -> Iterator[None]:
    """The live server's embedded runner plays and analyses what the test asks for (no broker, as in the demo, even
    where the test run has one); at the end its processes are stopped at once, not waited for: what a test left
    running (an analysis it only asked for, a branch's games) is not worth its CPU."""
    from workers import embedded

    settings.CELERY_BROKER_URL = ""
    yield
    embedded.shutdown(wait=False)


@pytest.fixture
def verify_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner verifies each replay here and now, as a worker's verification task would (a test run sets a broker
    but, outside the Celery tests, no worker takes the message): a tournament moves on only from verified results
    (tournaments/advancement.py)."""
    import workers.runner
    from replays.verification import verify_replay

    monkeypatch.setattr(workers.runner, "send_verification", verify_replay)


@pytest.fixture
def toygame_prelude() -> str:
    """Python source that registers tinynim in a fresh process (prepend it to `python -c` code)."""
    return REGISTER_TOYGAME


# --- personas --------------------------------------------------------------------------------------------------------


@pytest.fixture
def alice(django_user_model: Any) -> Any:
    """A bot owner and tournament organiser."""
    return django_user_model.objects.create_user("alice", "alice@example.org", "alice-password-1")


@pytest.fixture
def bob(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("bob", "bob@example.org", "bob-password-1")


@pytest.fixture
def charlie(django_user_model: Any) -> Any:
    """An outsider who owns nothing."""
    return django_user_model.objects.create_user("charlie", "charlie@example.org", "charlie-password-1")


@pytest.fixture
def admin_user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_superuser("root", "root@example.org", "root-password-1")


# --- games and bots --------------------------------------------------------------------------------------------------

TOYGAME_PATH = ROOT / "tests" / "workers" / "toygame.py"


def load_toygame() -> Any:
    spec = importlib.util.spec_from_file_location("ludus_tests_toygame", TOYGAME_PATH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.GAME


@pytest.fixture
def tinynim() -> Iterator[Any]:
    """Register the toy game "tinynim" for this test only (engine tests must never see it)."""
    from engine.registry import registered

    with registered(load_toygame()) as game:
        yield game


# Run in a subprocess before Django touches the toy game, so that process can play it too.
REGISTER_TOYGAME = (
    "import importlib.util, sys\nfrom engine.registry import register_game\n"
    f"spec = importlib.util.spec_from_file_location('ludus_tests_toygame', {str(TOYGAME_PATH)!r})\n"
    "m = importlib.util.module_from_spec(spec); sys.modules[spec.name] = m; spec.loader.exec_module(m)\n"
    "register_game(m.GAME)\n"
)


@pytest.fixture
def builtin_versions(db: None) -> dict[str, Any]:
    """Active built-in versions: one per engine bot plus two extra entrants, by entrant name."""
    from tournaments.builtins import ensure_builtin, ensure_builtins

    versions = ensure_builtins()
    versions["greedy-2"] = ensure_builtin("greedy-2", "greedy")
    versions["random-2"] = ensure_builtin("random-2", "random")
    return versions


@pytest.fixture
def make_tournament(builtin_versions: dict[str, Any], alice: Any) -> Callable[..., Any]:
    """A factory for a draft tournament of built-in entrants (default: tinynim, 4 entrants, 2 per table)."""
    from tournaments.scheduling import create_tournament

    def make(game: str = "tinynim", entrants: tuple[str, ...] = ("greedy", "random", "greedy-2", "random-2"),
             **fields: Any) -> Any:
        values = {"name": "cup", "game": game, "players_per_table": 2, "games_per_set": 1, "seed": 7,
                  "created_by": alice}
        values.update(fields)
        return create_tournament([builtin_versions[name] for name in entrants], **values)

    return make


@pytest.fixture
def tournament(tinynim: Any, make_tournament: Callable[..., Any]) -> Any:
    return make_tournament()


# --- a real Celery worker ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def celery_broker_url() -> str:
    from django.conf import settings

    return settings.CELERY_BROKER_URL or os.environ.get("LUDUS_TEST_BROKER_URL", TEST_BROKER_URL)


@pytest.fixture(autouse=True)
def celery_worker_idle_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that used the Celery worker: its tasks done before the database is flushed (wait_workers_idle).
    Autouse and defined after pytest-django's own: torn down before its flush."""
    yield
    if "celery_worker_process" in request.fixturenames:
        wait_workers_idle([celery_worker_name()], request.getfixturevalue("celery_broker_url"))


def celery_worker_name() -> str:
    return f"ludus-test-{os.getpid()}"


# Module scope: the worker is a child of the test process, and other tests check that no children are left over.
@pytest.fixture(scope="module")
def celery_worker_process(
    django_db_setup: None, django_db_blocker: Any, celery_broker_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[subprocess.Popen[bytes]]:
    """`celery -A config worker` as a real subprocess on the test database and this xdist worker's empty queues."""
    from django.conf import settings

    from config.celery import app

    clear_queues(celery_broker_url)
    # The test process sends to the same broker (make test sets CELERY_BROKER_URL; a bare run uses the default).
    settings.CELERY_BROKER_URL = celery_broker_url
    app.conf.broker_url = celery_broker_url
    with django_db_blocker.unblock():
        env = subprocess_env(CELERY_BROKER_URL=celery_broker_url)
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    name = celery_worker_name()
    worker = start_celery_worker(name, env, log_path)
    try:
        wait_until(lambda: worker.poll() is not None or ping_workers([name]), 90, "the worker to answer")
        if worker.poll() is not None:
            pytest.fail(f"the Celery worker exited with {worker.returncode}:\n{log_path.read_text()[-3000:]}")
        yield worker
    finally:
        stop_process(worker)
        settings.CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL")
