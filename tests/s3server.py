"""An S3-compatible server for the replay store's tests: moto's, over real HTTP on a free loopback port, standing in for
MinIO (whose binary is not installable here). Stopped and started again on its port, it keeps its buckets, as MinIO
on its volume does: its objects live in this test process."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from testkit import free_port

BUCKET = "ludus-replays"
KEYS = {"AWS_ACCESS_KEY_ID": "ludus-test", "AWS_SECRET_ACCESS_KEY": "ludus-test-secret"}  # moto takes any pair


class S3Server:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request in the test's output

    def start(self) -> None:
        from moto.server import ThreadedMotoServer

        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()

    def reset(self) -> None:
        """Empty the server: every moto server of this process shares one set of buckets."""
        import urllib.request

        urllib.request.urlopen(urllib.request.Request(f"{self.url}/moto-api/reset", method="POST"), timeout=10).close()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1",
                            aws_access_key_id=KEYS["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=KEYS["AWS_SECRET_ACCESS_KEY"])

    def make_bucket(self, name: str = BUCKET) -> None:
        self.client().create_bucket(Bucket=name)

    def objects(self, bucket: str = BUCKET) -> dict[str, bytes]:
        """Every object of the bucket, by key."""
        client = self.client()
        listed = client.list_objects_v2(Bucket=bucket).get("Contents", [])
        return {item["Key"]: client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read() for item in listed}

    def env(self, bucket: str = BUCKET) -> dict[str, str]:
        """The environment that points a Ludus process's replay store here."""
        return {"LUDUS_REPLAY_STORE": f"s3://{bucket}", "LUDUS_REPLAY_STORE_ENDPOINT": self.url,
                "LUDUS_REPLAY_STORE_TIMEOUT": "2", **KEYS}

    def storages(self, bucket: str = BUCKET) -> dict[str, Any]:
        """The STORAGES setting with the replay store here, as config/settings.py makes it from env()."""
        from django.conf import settings

        from config.settings import replay_storage

        return {**settings.STORAGES, "replays": replay_storage(f"s3://{bucket}", Path(), self.url, timeout=2.0)}


@contextmanager
def s3_replay_store(settings: Any, monkeypatch: Any) -> Iterator[S3Server]:
    """A running S3 server with the replays' bucket, and this process's replay store pointed at it."""
    server = S3Server()
    server.start()
    try:
        server.reset()
        server.make_bucket()
        for name, value in KEYS.items():
            monkeypatch.setenv(name, value)
        settings.STORAGES = server.storages()
        yield server
    finally:
        server.stop()
