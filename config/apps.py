"""The composition root: when Django starts, the apps get their runner, and tournaments the replays' verification
check (docs/architecture.md#configuration)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from tournaments.dispatch import Runner


def _runner() -> Runner:
    from config import celery  # noqa: F401 (the app that workers.tasks' shared tasks send through)
    from workers import dispatch

    return dispatch


class LudusConfig(AppConfig):
    name = "config"
    verbose_name = "Ludus configuration"

    def ready(self) -> None:
        from replays.verification import still_verifying  # after the apps' models are loaded
        from tournaments.dispatch import use_runner, use_verification_check

        use_runner(_runner)
        use_verification_check(still_verifying)
