"""The one seam where the web side hands work to the runners (ARCHITECTURE §2).

`tournaments` and `replays` never import `workers` (the import contracts in pyproject.toml, checked by
`lint-imports` in `make lint`). They name what they need here, and settings.LUDUS_RUNNER names the module that
provides it: `workers.dispatch`, which sends to Celery when a broker is configured and to the embedded process
pool otherwise. The dependency points from the runners to the apps; the settings module is the composition root.
"""

from __future__ import annotations

from concurrent.futures import Future
from functools import cache
from importlib import import_module
from typing import Any, Protocol, cast

from django.conf import settings


class RunnerUnavailable(RuntimeError):
    """The runner could not do the work now (a sandbox failure, not the bot's); the work is kept for a retry."""


class Runner(Protocol):
    """What the web side asks of the runners; `workers.dispatch` provides it."""

    def send_match(self, match_id: int, priority: int) -> None:
        """Hand a queued match to a runner, now (Celery takes priority 0 first; the embedded pool ignores it)."""

    def send_validation(self, version_id: int) -> Future[str] | Any:
        """Hand a bot version's validation to a runner, now."""

    def stale_validations(self) -> list[int]:
        """Versions whose validation was lost (a dead worker, a broker outage)."""

    def run_match_here(self, match_id: int) -> str:
        """Play a match in this process (try_bot)."""

    def validate_here(self, version_id: int) -> str:
        """Validate a version in this process; raises RunnerUnavailable when the sandbox failed."""

    def embedded_errors(self) -> list[BaseException]:
        """Crashes of the embedded pool's children (failed matches are in the database, not here)."""

    def stop_embedded(self) -> None:
        """Stop the embedded pool (it starts again on demand)."""


@cache
def _runner(path: str) -> Runner:
    return cast(Runner, import_module(path))


def runner() -> Runner:
    return _runner(settings.LUDUS_RUNNER)
