"""The web's Prometheus endpoint, /metrics: figures read from PostgreSQL and Redis when Prometheus scrapes.

Read at scrape time rather than counted as they happen, so the hot paths carry no instrumentation, every web
process answers alike, and a restart loses nothing. What only a worker sees (phase durations, faults by code,
sandbox kills) is on the workers' own endpoint (workers/metrics.py). docs/operations.md explains each figure.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from datetime import datetime

import redis
from django.conf import settings
from django.db.models import Count, Min, Q
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from tournaments.models import Ladder, Match, Tournament

Status = Match.Status
TERMINAL = (Status.FINISHED, Status.FAILED, Status.CANCELLED)
PENDING = (Status.QUEUED, Status.RUNNING)


class MatchCollector(Collector):
    """Matches by game and status: a counter for the ones that ended, a gauge for the ones waiting or playing."""

    def collect(self) -> Iterator[Metric]:
        ended = CounterMetricFamily("ludus_matches_finished", "Matches that ended, by game and final status "
                                    "(finished, failed, cancelled)", labels=["game", "status"])
        open_ = GaugeMetricFamily("ludus_matches_open", "Matches queued or running now, by game and status",
                                  labels=["game", "status"])
        rows = Match.objects.values_list("game", "status").annotate(n=Count("id")).order_by("game", "status")
        for game, status, n in rows:
            (ended if status in TERMINAL else open_).add_metric([game, status], n)
        yield ended
        yield open_


class RatingLagCollector(Collector):
    """Per running competition: how long its oldest unrated match has waited, and how many wait.

    Ratings change only when a match's result is recorded, so a competition's ratings lag its schedule by the
    age of its oldest queued or running rated match. Zero for an active competition with nothing waiting.
    """

    def collect(self) -> Iterator[Metric]:
        lag = GaugeMetricFamily("ludus_rating_lag_seconds", "Age of the oldest rated match not yet recorded, per "
                                "competition (ladder:ID or tournament:ID)", labels=["competition", "game"])
        waiting = GaugeMetricFamily("ludus_rating_pending_matches", "Rated matches queued or running, per "
                                    "competition", labels=["competition", "game"])
        now = timezone.now()
        for competition, game, oldest, n in _pending_by_competition():
            lag.add_metric([competition, game], (now - oldest).total_seconds() if oldest else 0.0)
            waiting.add_metric([competition, game], n)
        yield lag
        yield waiting


def _pending_by_competition() -> list[tuple[str, str, datetime | None, int]]:
    rows = (Match.objects.filter(Q(ladder__isnull=False) | Q(tournament__isnull=False), status__in=PENDING,
                                 rated=True)
            .values_list("ladder_id", "tournament_id", "game").annotate(oldest=Min("queued_at"), n=Count("id")))
    found = {_label(ladder, tournament): (game, oldest, n) for ladder, tournament, game, oldest, n in rows}
    active = [(f"ladder:{pk}", game) for pk, game in Ladder.objects.filter(paused=False).values_list("pk", "game")]
    active += [(f"tournament:{pk}", game) for pk, game in
               Tournament.objects.filter(state=Tournament.State.RUNNING).values_list("pk", "game")]
    for label, game in active:
        found.setdefault(label, (game, None, 0))
    return [(label, game, oldest, n) for label, (game, oldest, n) in sorted(found.items())]


def _label(ladder: int | None, tournament: int | None) -> str:
    return f"ladder:{ladder}" if ladder is not None else f"tournament:{tournament}"


class QueueCollector(Collector):
    """Messages waiting in each Celery queue: the length of its Redis list, the figure KEDA scales workers on.

    Ludus sends no task priorities, so each queue is exactly one list named after it.
    """

    def collect(self) -> Iterator[Metric]:
        if not settings.CELERY_BROKER_URL:
            return  # the embedded runner has no broker: ludus_matches_open{status="queued"} is its queue
        up = GaugeMetricFamily("ludus_broker_up", "1 when the web reached the broker's Redis for this scrape")
        depth = GaugeMetricFamily("ludus_queue_depth", "Messages waiting in each Celery queue", labels=["queue"])
        names = [queue.name for queue in settings.CELERY_TASK_QUEUES]
        try:
            client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2, socket_connect_timeout=2)
            with client.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.llen(name)
                lengths = pipe.execute()
        except redis.RedisError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        for name, length in zip(names, lengths, strict=True):
            depth.add_metric([name], length)
        yield up
        yield depth


COLLECTORS = (MatchCollector, RatingLagCollector, QueueCollector)


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus' text format; 401 without the bearer token when LUDUS_METRICS_TOKEN is set, 403 to everyone in
    production (DEBUG off) while it is not."""
    if not settings.LUDUS_METRICS_TOKEN and not settings.LUDUS_METRICS_OPEN_WITHOUT_TOKEN:
        return HttpResponse("/metrics is closed: set LUDUS_METRICS_TOKEN (required when DEBUG is off)\n", status=403,
                            content_type="text/plain")
    if not _is_authorized(request):
        return HttpResponse("a bearer token is required for /metrics\n", status=401, content_type="text/plain",
                            headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    registry = CollectorRegistry(auto_describe=False)
    for collector in COLLECTORS:
        registry.register(collector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


def _is_authorized(request: HttpRequest) -> bool:
    token = settings.LUDUS_METRICS_TOKEN
    if not token:
        return True
    given = request.headers.get("Authorization", "")
    return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


class MetricsMiddleware:
    """Answers /metrics ahead of Django's Host check: Prometheus scrapes by service name or pod address, which
    ALLOWED_HOSTS rightly does not list, and this page builds no URL from the host (what the check protects)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/metrics":
            return metrics_view(request)
        return self.get_response(request)
