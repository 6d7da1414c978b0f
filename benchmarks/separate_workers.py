"""Three workers set up as if on three machines, joined only by PostgreSQL and Redis.

Each "machine" gets its own copy of the code (`git archive HEAD`, no virtualenv of its own: PYTHONPATH points at the
copy), its own working directory, temp directory and HOME, and a Celery worker started there. Nothing on disk is
shared with the others or with this driver. The driver plays the web machine: it creates round-robin matches of
uploaded, sandboxed bots and sends them; then it checks that every worker ran some, that each match finished
exactly once, and that each worker imported its code from its own copy.

    python -m benchmarks.separate_workers            # 3 workers, 36 matches
    python -m benchmarks.separate_workers -n 60 --machines 3 --json artifacts/separate_workers.json
    python -m benchmarks.separate_workers --netns -n 24 --machines 1,2,3   # each worker in a network namespace

With --netns each worker runs in a network namespace of its own that reaches only PostgreSQL, Redis and an S3 store
(moto's server, started here) through forwarders (socat), and writes its replays to that store; the driver first
shows from inside each namespace what connects and what does not, then runs the same matches with 1, 2, 3 ...
workers in turn, and removes every namespace, link and forwarder at the end, also on an error or a signal.

(The one thing the three share on this host that separate machines would not is the kernel: the sandbox's uid
leases under /run/ludus-sandbox are per host by design, so here all three draw from one pool of uids.)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from benchmarks.cluster import ROOT, TIMINGS, Cluster, free_port, setup_django, wait_for


def export_code(destination: Path) -> Path:
    """The committed tree, as a release would ship it, unpacked into destination/code (a plain copy of this tree
    when it is not a git checkout)."""
    code = destination / "code"
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT, capture_output=True, check=False)
    if archive.returncode != 0:
        shutil.copytree(ROOT, code, ignore=shutil.ignore_patterns(".venv", "__pycache__", "var", "artifacts", ".git"))
        return code
    code.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(code, filter="data")
    return code


def machine_env(machine: Path) -> dict[str, str]:
    for name in ("tmp", "home"):
        (machine / name).mkdir(exist_ok=True)
    # Like /tmp: the sandbox's per-seat uids must reach the bot files the worker unpacks under TMPDIR.
    for path in (machine.parent, machine):
        path.chmod(0o755)
    (machine / "tmp").chmod(0o1777)
    return {"TMPDIR": str(machine / "tmp"), "HOME": str(machine / "home"),
            "CELERY_BEAT_SCHEDULE_FILENAME": str(machine / "tmp" / "celerybeat-schedule")}


def imported_from(cluster: Cluster, code: Path, env: dict[str, str]) -> str:
    """Where a process started like the worker imports the runner from."""
    probe = "import django; django.setup(); import workers.runner as r; print(r.__file__)"
    done = subprocess.run([sys.executable, "-c", probe], cwd=code, env=cluster.env(code, **env),
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def finished_by_machine(cluster: Cluster, names: list[str], ids: list[int], wait_s: float = 20) -> dict[str, int]:
    """How many of the matches each worker's log says it finished. A worker logs a match's line just after its
    result commits (and its heartbeat thread stops), so the last lines may trail the database: wait for them."""
    deadline = time.monotonic() + wait_s
    while True:
        per_machine = {}
        for name in names:
            finished = {int(m) for m, outcome, _ in TIMINGS.findall(cluster.log(name)) if outcome == "finished"}
            per_machine[name] = len(finished & set(ids))
        if sum(per_machine.values()) >= len(ids) or time.monotonic() > deadline:
            return per_machine
        time.sleep(0.2)


def counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.separate_workers", description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--matches", type=int, default=36)
    parser.add_argument("--machines", type=counts, default=[3],
                        help="how many workers; with --netns a list (1,2,3): a run with each, the same matches")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432/postgres",
                        help="the PostgreSQL server (a database is created on it and dropped)")
    parser.add_argument("--netns", action="store_true", help="each worker in a network namespace of its own")
    parser.add_argument("--netns-prefix", default="ludus-sw", help="the namespaces' names start with this")
    parser.add_argument("--netns-net", type=ipaddress.IPv4Network, default=ipaddress.IPv4Network("10.236.0.0/16"),
                        help="the links' addresses, a /30 per worker (they exist only inside the namespaces)")
    args = parser.parse_args(argv)
    if args.netns:
        try:
            report = main_netns(args)
        except KeyboardInterrupt as stop:
            print(f"interrupted ({stop}); namespaces, links, forwarders and workers removed", file=sys.stderr)
            return 130
    elif len(args.machines) != 1:
        parser.error("--machines takes one number without --netns")
    else:
        with tempfile.TemporaryDirectory(prefix="ludus-machines-") as tmp, \
                Cluster(Path(tmp) / "driver", server_url=args.server) as cluster:
            setup_django(cluster)
            report = run(cluster, Path(tmp), args.matches, args.machines[0])
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if report["ok"] else 1


def run(cluster: Cluster, tmp: Path, n: int, machines: int) -> dict[str, Any]:
    from benchmarks.load import check_exactly_once, make_matches, make_versions, run_matches

    names, homes = [], {}
    for i in range(machines):
        machine = tmp / f"machine-{i}"
        code = export_code(machine)
        env = machine_env(machine)
        homes[f"machine-{i}"] = {"code": str(code), "imports": imported_from(cluster, code, env)}
        names.append(cluster.start_worker(f"machine-{i}", code=code, **env))
    ids = make_matches(make_versions(4), n, f"{machines} machines")
    throughput = run_matches(cluster, ids, names, deadline_s=3600, progress=False)
    per_machine = finished_by_machine(cluster, names, ids)
    once = check_exactly_once(ids)
    own_code = all(info["imports"].startswith(info["code"] + os.sep) for info in homes.values())
    return {"machines": machines, "shared": {"postgresql": cluster.server_url.rsplit("/", 1)[0],
                                             "redis": cluster.broker_url},
            "homes": homes, "matches_by_machine": per_machine, "throughput": throughput, "exactly_once": once,
            "ok": once["exactly_once"] and own_code and all(per_machine.values())
            and sum(per_machine.values()) == len(ids)}


# --- workers in network namespaces (--netns) ----------------------------------------------------------------------

# Runs inside a worker's namespace: a TCP connect to each (label, host, port), "connected" or why not.
PROBE = """
import errno, json, socket, sys
found = {}
for label, host, port in json.loads(sys.argv[1]):
    try:
        socket.create_connection((host, port), timeout=2).close()
        found[label] = "connected"
    except socket.timeout:
        found[label] = "timed out"
    except OSError as exc:
        found[label] = errno.errorcode.get(exc.errno or 0, str(exc))
print(json.dumps(found))
"""


@dataclass(frozen=True)
class Service:
    """What the workers may reach: a TCP server on the host, re-offered in the gateway namespace on the same port."""

    name: str
    host: str
    port: int


def ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True, text=True)


class Network:
    """Each worker in a network namespace of its own whose only link, a veth pair, leads to one gateway namespace.
    In the gateway, socat forwarders offer PostgreSQL, Redis and the S3 store on the workers' side of each link and
    pass every connection through a UNIX socket to a socat on the host that connects to the real server.

    The link's far end is a namespace, not the host's own: an address on the host would let a worker reach every host
    server bound to 0.0.0.0, and there is no packet filter here to stop it. A worker's namespace holds its loopback
    and its link; the gateway holds the links and the three forwarders; the host holds no new interface or address.
    `close()` kills the forwarders and anything left in the namespaces, then deletes the namespaces and their veths
    (after a SIGKILL of the driver, `ip netns list` shows what to delete by hand: the names carry its pid).
    """

    def __init__(self, prefix: str, net: ipaddress.IPv4Network, workdir: Path) -> None:
        self.prefix, self.net, self.sockets = f"{prefix}-{os.getpid()}", net, workdir
        self.gateway = f"{self.prefix}-gw"
        self.namespaces: list[str] = []
        self.forwarders: list[subprocess.Popen[bytes]] = []

    def add_namespace(self, name: str) -> str:
        ip("netns", "add", name)
        self.namespaces.append(name)
        ip("-n", name, "link", "set", "lo", "up")
        return name

    def open_gateway(self, services: list[Service]) -> None:
        self.add_namespace(self.gateway)
        self.sockets.mkdir(mode=0o700, parents=True, exist_ok=True)
        for service in services:
            sock = self.sockets / f"{service.name}.sock"
            self.forward(["socat", f"UNIX-LISTEN:{sock},fork,mode=600", f"TCP:{service.host}:{service.port}"])
            wait_for(sock.exists, 30, f"the {service.name} forwarder's socket")
            self.forward(["nsenter", f"--net=/run/netns/{self.gateway}", "socat",
                          f"TCP-LISTEN:{service.port},fork,reuseaddr", f"UNIX-CONNECT:{sock}"])
        listening = [(s.name, "127.0.0.1", s.port) for s in services]
        wait_for(lambda: set(self.probe(self.gateway, listening).values()) <= {"connected"}, 30, "the forwarders")

    def forward(self, argv: list[str]) -> None:
        self.forwarders.append(subprocess.Popen(argv, start_new_session=True, stderr=subprocess.DEVNULL))

    def add_worker(self, index: int) -> tuple[str, str]:
        """A namespace linked to the gateway; returns its name and the gateway's address as it sees it."""
        name = self.add_namespace(f"{self.prefix}-{index}")
        link = ipaddress.IPv4Network((int(self.net.network_address) + 4 * index, 30))
        gateway, worker = (str(address) for address in list(link.hosts())[:2])
        ip("link", "add", "eth0", "netns", name, "type", "veth", "peer", "name", f"w{index}", "netns", self.gateway)
        ip("-n", self.gateway, "addr", "add", f"{gateway}/30", "dev", f"w{index}")
        ip("-n", name, "addr", "add", f"{worker}/30", "dev", "eth0")
        ip("-n", self.gateway, "link", "set", f"w{index}", "up")
        ip("-n", name, "link", "set", "eth0", "up")
        return name, gateway

    def probe(self, namespace: str, targets: list[tuple[str, str, int]]) -> dict[str, str]:
        done = subprocess.run(["nsenter", f"--net=/run/netns/{namespace}", sys.executable, "-c", PROBE,
                               json.dumps(targets)], capture_output=True, text=True, check=True)
        return dict(json.loads(done.stdout))

    def close(self) -> None:
        for process in self.forwarders:
            stop_group(process)
        for name in reversed(self.namespaces):
            pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout.split()
            for pid in pids:  # what the workers left behind (their process groups are gone already)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
        self.namespaces.clear()

    def __enter__(self) -> Network:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def stop_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@dataclass
class NamespacedCluster(Cluster):
    """A Cluster whose processes named in `namespace_of` start inside that network namespace (nsenter changes only
    the network namespace and execs: the process keeps its pid, its group and this host's file system)."""

    namespace_of: dict[str, str] = field(default_factory=dict)

    def spawn(self, name: str, argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
              ) -> subprocess.Popen[bytes]:
        if name in self.namespace_of:
            argv = ["nsenter", f"--net=/run/netns/{self.namespace_of[name]}", *argv]
        return super().spawn(name, argv, cwd, env)


S3_KEYS = {"AWS_ACCESS_KEY_ID": "ludus-bench", "AWS_SECRET_ACCESS_KEY": "ludus-bench-secret"}  # moto takes any pair


@contextlib.contextmanager
def s3_server() -> Iterator[int]:
    """moto's S3 server on a free loopback port (the tests' stand-in for MinIO); yields the port."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    os.environ.update(S3_KEYS)
    try:
        yield port
    finally:
        server.stop()


def s3_client(port: int) -> Any:
    import boto3

    return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1")


def interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # unwinds every `with` below: the teardown runs


def main_netns(args: argparse.Namespace) -> dict[str, Any]:
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupted)
    with tempfile.TemporaryDirectory(prefix="ludus-netns-") as tmp, s3_server() as s3_port, \
            Network(args.netns_prefix, args.netns_net, Path(tmp) / "sockets") as network:
        cluster = NamespacedCluster(Path(tmp) / "driver", server_url=args.server)
        with cluster:  # stopped before the network: the workers end their matches, then lose their links
            setup_django(cluster)
            report = run_netns(cluster, network, s3_port, Path(tmp), args.matches, args.machines)
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    report["left_behind"] = [line.split()[0] for line in left.splitlines() if line.startswith(network.prefix)]
    report["ok"] = report["ok"] and not report["left_behind"]
    return report


def services_of(cluster: Cluster, s3_port: int) -> list[Service]:
    server = urlparse(cluster.server_url)
    return [Service("postgresql", server.hostname or "127.0.0.1", server.port or 5432),
            Service("redis", "127.0.0.1", cluster.redis_port), Service("s3", "127.0.0.1", s3_port)]


def run_netns(cluster: NamespacedCluster, network: Network, s3_port: int, tmp: Path, n: int, counts: list[int]
              ) -> dict[str, Any]:
    from benchmarks.load import make_versions

    services = services_of(cluster, s3_port)
    network.open_gateway(services)
    gateways = dict(network.add_worker(i) for i in range(max(counts)))
    isolation = show_isolation(network, gateways, services)
    codes = [export_code(tmp / f"machine-{i}") for i in range(max(counts))]
    versions = make_versions(4)
    runs = [scaling_run(cluster, list(gateways.items())[:k], codes, versions, services, n, f"run{r}")
            for r, k in enumerate(counts)]
    return {"mode": "netns", "cores": os.cpu_count(), "namespaces": list(gateways), "gateway": network.gateway,
            "services": {s.name: f"{s.host}:{s.port}" for s in services}, "isolation": isolation, "runs": runs,
            "ok": isolation["ok"] and all(r["ok"] for r in runs)}


def host_addresses() -> list[str]:
    shown = subprocess.run(["ip", "-j", "-4", "addr", "show"], capture_output=True, text=True, check=True).stdout
    return [a["local"] for link in json.loads(shown) for a in link.get("addr_info", [])
            if not a["local"].startswith("127.")]


def show_isolation(network: Network, gateways: dict[str, str], services: list[Service]) -> dict[str, Any]:
    """From inside each namespace: the three services connect through the gateway; a port open on every address
    of the host (a web server's, here a bare listener), PostgreSQL's own port and the other namespaces do not."""
    with socket.create_server(("0.0.0.0", 0)) as web:
        port = web.getsockname()[1]
        hosts = ["127.0.0.1", *host_addresses()]
        control = {f"web port at {h}:{port}": reach(h, port) for h in hosts}
        seen: dict[str, dict[str, Any]] = {}
        for namespace, gateway in gateways.items():
            allowed = [(f"{s.name} at {gateway}:{s.port}", gateway, s.port) for s in services]
            refused = [(f"web port at {h}:{port}", h, port) for h in [*hosts, gateway]]
            refused += [(f"postgresql at {h}:{services[0].port}", h, services[0].port) for h in hosts]
            refused += [(f"{other} at {address}:{services[0].port}", address, services[0].port)
                        for other, address in worker_addresses(gateways).items() if other != namespace]
            found = network.probe(namespace, allowed + refused)
            seen[namespace] = {"reached": {k: v for k, v in found.items() if v == "connected"},
                               "refused": {k: v for k, v in found.items() if v != "connected"}}
            seen[namespace]["ok"] = sorted(seen[namespace]["reached"]) == sorted(t[0] for t in allowed)
    ok = all(v == "connected" for v in control.values()) and all(v["ok"] for v in seen.values())
    return {"from_the_host": control, "from_each_namespace": seen, "ok": ok}


def worker_addresses(gateways: dict[str, str]) -> dict[str, str]:
    return {name: str(ipaddress.IPv4Address(gateway) + 1) for name, gateway in gateways.items()}


def reach(host: str, port: int) -> str:
    try:
        socket.create_connection((host, port), timeout=2).close()
        return "connected"
    except OSError as exc:
        return str(exc)


def namespace_env(cluster: Cluster, gateway: str, services: list[Service], bucket: str) -> dict[str, str]:
    """A worker's settings as its namespace sees the services: every one at the gateway."""
    database = urlparse(cluster.database_url)
    user = database.netloc.rsplit("@", 1)[0] + "@" if "@" in database.netloc else ""
    postgresql, redis, s3 = services
    return {"DATABASE_URL": database._replace(netloc=f"{user}{gateway}:{postgresql.port}").geturl(),
            "CELERY_BROKER_URL": f"redis://{gateway}:{redis.port}/0", "CACHE_URL": "",
            "LUDUS_REPLAY_STORE": f"s3://{bucket}", "LUDUS_REPLAY_STORE_ENDPOINT": f"http://{gateway}:{s3.port}",
            **S3_KEYS}


def scaling_run(cluster: NamespacedCluster, machines: list[tuple[str, str]], codes: list[Path], versions: list[Any],
                services: list[Service], n: int, label: str) -> dict[str, Any]:
    """The same n matches on len(machines) workers, one a namespace, replays to a bucket of the run's own."""
    from django.conf import settings
    from django.test.utils import override_settings

    from benchmarks.load import check_exactly_once, make_matches, run_matches
    from config.settings import replay_storage

    s3 = services[2]
    s3_client(s3.port).create_bucket(Bucket=label)
    names = []
    for i, (namespace, gateway) in enumerate(machines):
        name = f"{label}-machine-{i}"
        cluster.namespace_of[name] = namespace
        env = {**machine_env(codes[i].parent), **namespace_env(cluster, gateway, services, label)}
        names.append(cluster.start_worker(name, code=codes[i], **env))
    ids = make_matches(versions, n, f"{label}, {len(machines)} namespaces")
    load_before, cpu_before = os.getloadavg(), cpu_times()
    throughput = run_matches(cluster, ids, names, deadline_s=3600, progress=False)
    load_after, cpu_after = os.getloadavg(), cpu_times()
    per_machine = finished_by_machine(cluster, names, ids)
    for name in names:
        cluster.stop(name)
    store = replay_storage(f"s3://{label}", Path(), f"http://127.0.0.1:{s3.port}")
    with override_settings(STORAGES={**settings.STORAGES, "replays": store}):
        once, stored = check_exactly_once(ids), check_stored(ids, s3.port, label)
    return {"machines": len(machines), "matches": n, "wall_s": throughput["wall_s"],
            "matches_per_min": throughput["matches_per_min"], "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after], "cpu_busy": busy_share(cpu_before, cpu_after),
            "matches_by_machine": per_machine,
            "exactly_once": once, "replays": stored,
            "ok": once["exactly_once"] and stored["ok"] and all(per_machine.values())
            and sum(per_machine.values()) == len(ids)}


def cpu_times() -> list[int]:
    """The host's CPU time so far, in ticks by kind (the first line of /proc/stat)."""
    return [int(ticks) for ticks in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]


def busy_share(before: list[int], after: list[int]) -> float:
    """The share of the host's CPU time, all cores, that was not idle between the two readings."""
    spent = [b - a for a, b in zip(before, after, strict=True)]
    idle = spent[3] + spent[4]  # idle and iowait
    return round(1 - idle / max(1, sum(spent)), 3)


def check_stored(ids: list[int], s3_port: int, bucket: str) -> dict[str, Any]:
    """Every replay's action log is in the bucket (not pending in the database), reads back through its digest,
    and re-simulates to its recorded outcome."""
    from replays.models import Replay
    from replays.storage import ReplayUnavailable
    from replays.verify import ReplayMismatch, verify_document

    replays = list(Replay.objects.filter(match_id__in=ids))
    in_store = [r for r in replays if r.location and not r.pending and r.actions is None]
    verified = 0
    for replay in in_store:
        with contextlib.suppress(ReplayMismatch, ReplayUnavailable):
            verify_document(replay.document())
            verified += 1
    listed = s3_client(s3_port).list_objects_v2(Bucket=bucket).get("KeyCount", 0)
    keys = {r.location for r in in_store}
    return {"in_store": len(in_store), "verified_from_store": verified, "objects": listed, "distinct_keys": len(keys),
            "ok": len(in_store) == verified == len(ids) and listed == len(keys)}


if __name__ == "__main__":
    raise SystemExit(main())
