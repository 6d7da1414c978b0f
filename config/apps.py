"""The composition root: when Django starts, the apps get their runner (docs/architecture.md#configuration)."""

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
        from tournaments.dispatch import use_runner  # after the apps' models are loaded

        use_runner(_runner)
