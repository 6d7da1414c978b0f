"""The replay store's cost to a match: the runner's `store` phase (writing the action log's file before the result's
transaction) and `record` (the transaction), and a replay's read, for each store, in milliseconds of wall time.

    python -m benchmarks.replay_store                     # 30 marine matches a store: a directory, S3, S3 down
    python -m benchmarks.replay_store --matches 10 --endpoint http://127.0.0.1:9000 --bucket ludus-replays

S3 is moto's server over HTTP on a free port (the tests' stand-in for MinIO, in Python: slower than MinIO), or the
server at --endpoint with the bucket --bucket and the keys of AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY. "S3 down" is
the same store stopped (moto) or a port nothing listens on. It makes a database of its own on the PostgreSQL server
of DATABASE_URL (default postgres://postgres@127.0.0.1:5432/ludus), as Django's tests do, and drops it at the end.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchmarks.cluster import free_port


class PhaseLog(logging.Handler):
    """The runner's per-match timings, from its log line."""

    def __init__(self) -> None:
        super().__init__()
        self.phases: list[dict[str, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "; timings " in message:
            self.phases.append(json.loads(message.split("; timings ", 1)[1]))


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ms (max {max(values):.2f})"


def run(label: str, store: dict[str, Any], matches: int, log: PhaseLog) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test.utils import override_settings

    from replays.models import Replay
    from tournaments.builtins import ensure_builtin
    from tournaments.models import Ladder
    from tournaments.new_matches import create_match
    from workers.runner import run_match

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    ladder = Ladder.objects.create(name=label, game="marine", players_per_match=2, created_by=owner)
    bots = [ensure_builtin("greedy"), ensure_builtin("greedy-2", "greedy")]
    log.phases.clear()
    reads = []
    with override_settings(STORAGES={**settings.STORAGES, "replays": store}):
        for seed in range(matches):
            match = create_match(ladder, bots, seed)
            assert run_match(match.pk) == "finished"
            replay = Replay.objects.get(match=match)
            started = time.perf_counter()
            replay.action_log()
            reads.append((time.perf_counter() - started) * 1000)
    pending = Replay.objects.filter(match__ladder=ladder, pending=True).count()
    print(f"{label}: {matches} matches, {pending} pending; store {spread([p['store'] for p in log.phases])}; "
          f"record {spread([p['record'] for p in log.phases])}; read {spread(reads)}")


def measure(matches: int, endpoint: str | None, bucket: str) -> None:
    from config.settings import replay_storage

    log = PhaseLog()
    runner_log = logging.getLogger("workers.runner")
    runner_log.addHandler(log)
    runner_log.setLevel(logging.INFO)
    runner_log.propagate = False  # the timings here, not on the console
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as directory:
        run("directory", replay_storage(None, Path(directory)), matches, log)
    server = None
    if endpoint is None:
        from moto.server import ThreadedMotoServer

        port = free_port()
        endpoint = f"http://127.0.0.1:{port}"
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        server.start()
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            os.environ.setdefault(name, "bench")
        import boto3

        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    run("S3", replay_storage(f"s3://{bucket}", Path(), endpoint), matches, log)
    if server is not None:
        server.stop()
    down = endpoint if server is not None else f"http://127.0.0.1:{free_port()}"
    run("S3 down", replay_storage(f"s3://{bucket}", Path(), down), matches, log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--endpoint", default=None, help="an S3 server's URL (default: moto's, started here)")
    parser.add_argument("--bucket", default="ludus-replays")
    args = parser.parse_args()
    server = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/ludus"))
    os.environ.update(DATABASE_URL=server._replace(path=f"/bench_replay_store_{uuid.uuid4().hex[:8]}").geturl(),
                      DEBUG="1", LUDUS_ENV_FILE="", DJANGO_SETTINGS_MODULE="config.settings", LOG_LEVEL="ERROR")
    for variable in ("CELERY_BROKER_URL", "LUDUS_REPLAY_STORE"):
        os.environ.pop(variable, None)
    import django

    django.setup()
    from django.db import connection

    name = connection.creation.create_test_db(verbosity=0, serialize=False)  # test_<name>, made and migrated
    try:
        measure(args.matches, args.endpoint, args.bucket)
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
