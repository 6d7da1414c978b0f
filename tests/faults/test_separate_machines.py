"""Workers as if on separate machines (own code copy, working directory, TMPDIR, HOME) need only PostgreSQL and
Redis in common: benchmarks/separate_workers.py, run small."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

import pytest
from testkit import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.sandbox]


def test_workers_sharing_only_postgresql_and_redis_run_every_match_once(repo_root: Path, tmp_path: Path) -> None:
    from django.conf import settings

    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    server = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/postgres"
    report_path = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.separate_workers", "-n", "12", "--machines", "3", "--server", server,
         "--json", str(report_path)],
        cwd=repo_root, capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_path.read_text())
    assert report["ok"]
    assert all(count > 0 for count in report["matches_by_machine"].values())
    assert report["exactly_once"]["finished"] == report["exactly_once"]["replays"] == 12
    for home in report["homes"].values():
        assert home["imports"].startswith(home["code"])


# The network half of `separate_workers --netns` (the whole run takes over a minute on a busy 2-core host, too long
# for the suite; docs/scaling.md section 4 has its figures): a namespace reaches the forwarded services and nothing
# else, and closing the network leaves no namespace, forwarder or process behind.


@pytest.fixture
def network(tmp_path: Path) -> Iterator[Any]:
    from django.conf import settings

    from benchmarks.separate_workers import Network

    missing = [tool for tool in ("ip", "nsenter", "socat") if shutil.which(tool) is None]
    if missing or os.geteuid() != 0:
        pytest.fail(f"network namespaces need root and {', '.join(missing) or 'ip, nsenter, socat'}: "
                    "run `make sysdeps` as root (iproute2, util-linux, socat)")
    # Named after this suite's database: two suites on one host never share a namespace name.
    prefix = str(settings.DATABASES["default"]["NAME"]).removeprefix("test_").replace("_", "-")
    probe = f"{prefix}-{os.getpid()}-probe"
    tried = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    if tried.returncode != 0:
        pytest.fail(f"`ip netns add` is not permitted here ({tried.stderr.strip()}): the suite runs as root on a host "
                    "that allows network namespaces, as the README's test command does")
    subprocess.run(["ip", "netns", "del", probe], check=True)
    network = Network(prefix, IPv4Network("10.236.0.0/16"), tmp_path / "sockets")
    try:
        yield network
    finally:
        network.close()


def test_a_worker_namespace_reaches_the_forwarded_services_and_nothing_else(network: Any) -> None:
    from benchmarks.separate_workers import Service, host_addresses

    with socket.create_server(("127.0.0.1", 0)) as service, socket.create_server(("", 0)) as web:
        port, web_port = service.getsockname()[1], web.getsockname()[1]
        network.open_gateway([Service("store", "127.0.0.1", port)])
        namespace, gateway = network.add_worker(0)
        targets = [("store", gateway, port), ("web via the gateway", gateway, web_port),
                   ("web at loopback", "127.0.0.1", web_port), ("store at loopback", "127.0.0.1", port)]
        targets += [(f"web at {address}", address, web_port) for address in host_addresses()]
        found = network.probe(namespace, targets)
    assert found.pop("store") == "connected"
    assert found.pop("web via the gateway") == found.pop("web at loopback") == found.pop("store at loopback") \
        == "ECONNREFUSED"
    assert set(found.values()) <= {"ENETUNREACH"}  # the host's own addresses: no route leaves the namespace


def test_closing_the_network_leaves_no_namespace_forwarder_or_process(network: Any) -> None:
    from benchmarks.separate_workers import Service

    network.open_gateway([Service("postgresql", "127.0.0.1", 5432)])
    namespace, _ = network.add_worker(0)
    left = subprocess.Popen(["nsenter", f"--net=/run/netns/{namespace}", "sleep", "600"], start_new_session=True)
    # In the namespace once nsenter has run sleep in its place (on a busy host, a namespace closed before that made
    # nsenter exit 1 instead of leaving a process for close to kill).
    comm = Path(f"/proc/{left.pid}/comm")
    assert wait_until(lambda: comm.read_text().strip() == "sleep", 30, "sleep to run in the namespace")
    forwarders = list(network.forwarders)
    network.close()
    assert left.wait(timeout=30) == -signal.SIGKILL
    assert all(forwarder.poll() is not None for forwarder in forwarders)
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert network.prefix not in listed
