"""`GET /healthz` for compose and load balancers: the database answers, the broker answers (when one is set; the
embedded default has none), and every migration is applied. 200 when all hold, else 503; the JSON body names each
check and what failed (the full error goes to the log, not to the public).

Served by a middleware placed first, before the host check: a container's own healthcheck asks for 127.0.0.1,
which ALLOWED_HOSTS need not list.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse

PATH = "/healthz"
BROKER_TIMEOUT_S = 3
log = logging.getLogger(__name__)


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def check_migrations() -> str:
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _ in plan[:5])
        raise RuntimeError(f"{len(plan)} not applied: {names}")
    return "ok"


def check_broker() -> str:
    if not settings.CELERY_BROKER_URL:
        return "none configured (embedded runner)"
    from kombu import Connection

    with Connection(settings.CELERY_BROKER_URL, connect_timeout=BROKER_TIMEOUT_S) as broker:
        broker.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_S)
    return "ok"


CHECKS: dict[str, Callable[[], str]] = {"database": check_database, "broker": check_broker,
                                        "migrations": check_migrations}


def health() -> tuple[dict[str, str], list[str]]:
    """Each check's result, and the names of those that failed."""
    results: dict[str, str] = {}
    failed: list[str] = []
    for name, check in CHECKS.items():
        try:
            results[name] = check()
        except Exception as exc:  # any failure of a dependency is the answer, not an error of this page
            log.error("health check %s failed: %s", name, exc)
            detail = str(exc) if name == "migrations" else "unreachable"
            results[name], failed = f"failing: {detail} ({type(exc).__name__})", [*failed, name]
    return results, failed


def healthz() -> HttpResponse:
    results, failed = health()
    body = {"status": "failing" if failed else "ok", "failed": failed, "checks": results}
    response = JsonResponse(body, status=503 if failed else 200)
    response["Cache-Control"] = "no-store"
    return response


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == PATH and request.method in ("GET", "HEAD"):
            return healthz()
        return self.get_response(request)


class Unavailable(Exception):
    """A service a request needs did not answer (the replay store): the answer is a 503 that says to retry, not a
    500. The message is for the log; the client is told only which service, and when to try again."""

    service = "a service"


RETRY_AFTER_S = 30


class UnavailableMiddleware:
    """Turn Unavailable, raised by a page or an API view, into a 503 with Retry-After (JSON under /api/, text
    elsewhere); DRF hands exceptions it does not know on to Django, so one middleware serves both."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, Unavailable):
            return None
        log.warning("503 for %s: %s", request.path, exception)
        detail = f"{exception.service} is not answering; try again in {RETRY_AFTER_S} seconds"
        response: HttpResponse = (JsonResponse({"detail": detail}, status=503) if request.path.startswith("/api/")
                                  else HttpResponse(detail + "\n", status=503, content_type="text/plain"))
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response

