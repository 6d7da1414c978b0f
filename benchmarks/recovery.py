"""Recovery from infrastructure faults: each fault of docs/operations.md's recovery table, injected and timed.

    python -m benchmarks.recovery [--quick] [--json PATH]

One private deployment (benchmarks/cluster.py: its own PostgreSQL database, its own redis-server, real Celery
workers and a real beat). The workers reach PostgreSQL through a TCP proxy this process can cut, so a database
outage hits them and not this process. Faults, one after another, each on a tournament of its own:

- broken worker: a third worker whose temp directory is gone fails every sandboxed match in milliseconds;
- database outage: the workers' database is unreachable for a while with matches queued;
- broker down at start: a tournament is started while Redis is down, then Redis returns;
- broker restart: Redis (no persistence) is killed and restarted with matches queued and running;
- backlog: far more matches than workers, for longer than LUDUS_REDISPATCH_SECONDS;
- worker killed: `kill -9` of a worker in the middle of a match.

Reported per fault: seconds from the store's return (or the kill) to the first stranded match running, to every
match finished, failed matches, run messages received beyond one per match (duplicates), and the invariants:
exactly one result per match, every replay re-simulates to its outcome, ratings equal a recomputation.
Goals: every match finishes rated despite one broken worker; the first stranded match runs within 30 s
of a store's return; a backlog gets no duplicate messages.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The deployment's settings: short leases and beat periods, so a fault shows in seconds; the visibility timeout
# stays at its default (35 minutes): recovery must not depend on it.
CLUSTER_ENV = {"LUDUS_HEARTBEAT_SECONDS": "2", "LUDUS_LEASE_SECONDS": "12", "LUDUS_REAPER_SECONDS": "5",
               "LUDUS_DISPATCH_SECONDS": "5", "LUDUS_REDISPATCH_SECONDS": "10", "LUDUS_RETRY_SECONDS": "2"}
RECEIVED = re.compile(r"Task workers\.run_match\[[^\]]+\] received")


class TcpProxy:
    """A TCP relay from a free loopback port to a server, that can be cut: `cut()` drops every connection and
    refuses new ones (each is accepted and closed at once, as by a server going down) until `restore()`."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.down = False
        self.closed = False
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="tcp-proxy", daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            self.down = True
            for sock in self._open:
                self._shut(sock)
            self._open.clear()

    def restore(self) -> None:
        self.down = False

    def close(self) -> None:
        self.closed = True
        self.cut()
        self.listener.close()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down:
                self._shut(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                self._shut(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            self._shut(sink)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


class Deployment:
    """The cluster, its proxy, its workers and beat, and the helpers the scenarios share."""

    def __init__(self, cluster: Any, proxy: TcpProxy) -> None:
        from urllib.parse import urlparse, urlunparse

        self.cluster, self.proxy = cluster, proxy
        url = urlparse(cluster.database_url)
        netloc = f"{url.username or 'postgres'}{':' + url.password if url.password else ''}@127.0.0.1:{proxy.port}"
        self.proxied_url = urlunparse(url._replace(netloc=netloc))
        self.workers: list[str] = []

    def start_worker(self, name: str, **env: str) -> str:
        self.cluster.start_worker(name, **{**CLUSTER_ENV, "DATABASE_URL": self.proxied_url, **env})
        self.workers.append(name)
        return name

    def start_beat(self) -> None:
        schedule = self.cluster.workdir / "celerybeat-schedule"
        self.cluster.spawn("beat", [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO"],
                           env=self.cluster.env(**CLUSTER_ENV, CELERY_BEAT_SCHEDULE_FILENAME=str(schedule)))

    def received(self) -> int:
        return sum(len(RECEIVED.findall(self.cluster.log(name))) for name in self.workers)

    def restart_redis(self) -> None:
        """SIGKILL redis-server (no persistence: every message is gone) and start it again on the same port."""
        self.kill_redis()
        self.start_redis()

    def kill_redis(self) -> None:
        for entry in [e for e in self.cluster.processes if e[0] == "redis"]:
            os.killpg(entry[1].pid, signal.SIGKILL)
            entry[1].wait()
            self.cluster.processes.remove(entry)

    def start_redis(self) -> None:
        from benchmarks.cluster import wait_for

        self.cluster.spawn("redis", ["redis-server", "--port", str(self.cluster.redis_port), "--bind", "127.0.0.1",
                                     "--save", "", "--appendonly", "no", "--daemonize", "no"])
        wait_for(self.cluster._redis_answers, 30, "redis-server")


# --- what every scenario measures ----------------------------------------------------------------------------------


def tournament_of(versions: list[Any], name: str, games: int = 1) -> Any:
    from tournaments.scheduling import create_tournament

    return create_tournament(versions, name=name, game="evolution", players_per_table=2, games_per_set=games,
                             seed=len(name))


def wait(predicate: Callable[[], Any], deadline_s: float, what: str) -> float:
    """Seconds until predicate holds (polled every 0.1 s); raises TimeoutError at the deadline."""
    t0 = time.monotonic()
    while not predicate():
        if time.monotonic() - t0 > deadline_s:
            raise TimeoutError(f"timed out after {deadline_s:.0f}s waiting for {what}")
        time.sleep(0.1)
    return round(time.monotonic() - t0, 2)


def first_running(ids: list[int]) -> Callable[[], bool]:
    from tournaments.models import Match

    return lambda: Match.objects.filter(pk__in=ids, started_at__isnull=False).exists()


def all_finished(ids: list[int]) -> Callable[[], bool]:
    from tournaments.models import Match

    return lambda: not Match.objects.filter(pk__in=ids).exclude(status="finished").exclude(status="failed").exists()


def invariants(tournament: Any) -> dict[str, Any]:
    """Exactly once, replays re-simulate to their outcome, ratings equal a recomputation; failed matches."""
    from benchmarks.load import check_exactly_once
    from replays.models import Replay
    from replays.verify import verify_document
    from tournaments.models import Match

    ids = list(Match.objects.filter(tournament=tournament).values_list("pk", flat=True))
    result = check_exactly_once(ids)
    verified = 0
    for replay in Replay.objects.filter(match__tournament=tournament):
        document = replay.document()
        verified += verify_document(document)["ranks"] == document["footer"]["outcome"]["ranks"]
    tournament.refresh_from_db()
    return {"matches": len(ids), "failed": Match.objects.filter(pk__in=ids, status="failed").count(),
            "exactly_once": result["exactly_once"], "replays_verified": verified,
            "ratings_agree_with_history": result["ratings_agree_with_history"], "tournament": tournament.state}


# --- the faults ----------------------------------------------------------------------------------------------------


def broken_worker(dep: Deployment, versions: list[Any], quick: bool) -> dict[str, Any]:
    from tournaments.scheduling import start_tournament

    broken_tmp = dep.cluster.workdir / "broken-tmp"
    broken_tmp.mkdir()
    name = dep.start_worker("broken", TMPDIR=str(broken_tmp))
    shutil.rmtree(broken_tmp)
    broken_tmp.write_text("not a directory\n")  # its temp space is gone: every sandboxed seat fails to start
    tournament = tournament_of(versions, "broken worker", games=1 if quick else 2)
    received_before = dep.received()
    ids = [m.pk for m in start_tournament(tournament)]
    all_s = wait(all_finished(ids), 900, "every match")
    tripped = "stops taking matches" in dep.cluster.log(name)
    runs = dep.received() - received_before
    broken_runs = len(RECEIVED.findall(dep.cluster.log(name)))
    dep.cluster.stop(name)
    dep.workers.remove(name)
    return {"seconds_to_all_finished": all_s, "broken_worker_stopped_itself": tripped, "runs_received": runs,
            "runs_on_broken_worker": broken_runs, **invariants(tournament)}


def database_outage(dep: Deployment, versions: list[Any], quick: bool) -> dict[str, Any]:
    from tournaments.scheduling import start_tournament

    outage_s = 10 if quick else 30
    tournament = tournament_of(versions, "database outage")
    dep.proxy.cut()
    ids = [m.pk for m in start_tournament(tournament)]
    time.sleep(outage_s)  # the outage: the workers take the messages and cannot claim
    dep.proxy.restore()
    first = wait(first_running(ids), 600, "the first stranded match to run")
    every = wait(all_finished(ids), 900, "every match")
    return {"outage_s": outage_s, "seconds_to_first_running": first, "seconds_to_all_finished": round(first + every, 2),
            **invariants(tournament)}


def broker_down_at_start(dep: Deployment, versions: list[Any], quick: bool) -> dict[str, Any]:
    from tournaments.scheduling import start_tournament

    tournament = tournament_of(versions, "broker down at start")
    dep.kill_redis()
    ids = [m.pk for m in start_tournament(tournament)]  # succeeds: the rows are the outbox
    time.sleep(5 if quick else 15)
    dep.start_redis()
    first = wait(first_running(ids), 600, "the first stranded match to run")
    every = wait(all_finished(ids), 900, "every match")
    return {"start_succeeded": True, "seconds_to_first_running": first,
            "seconds_to_all_finished": round(first + every, 2), **invariants(tournament)}


def broker_restart(dep: Deployment, versions: list[Any], quick: bool) -> dict[str, Any]:
    from tournaments.models import Match
    from tournaments.scheduling import start_tournament

    tournament = tournament_of(versions, "broker restart", games=2)
    ids = [m.pk for m in start_tournament(tournament)]
    wait(lambda: Match.objects.filter(pk__in=ids, status="running").exists(), 300, "a match running")
    dep.restart_redis()
    stranded = list(Match.objects.filter(pk__in=ids, status="queued").values_list("pk", flat=True))  # no message
    first = wait(first_running(stranded), 600, "the first stranded match to run")
    every = wait(all_finished(ids), 900, "every match")
    return {"stranded": len(stranded), "seconds_to_first_running": first,
            "seconds_to_all_finished": round(first + every, 2), **invariants(tournament)}


def backlog(dep: Deployment, versions: list[Any], quick: bool) -> dict[str, Any]:
    from django.db.models import F, Max

    from tournaments.models import Match
    from tournaments.scheduling import start_tournament

    tournament = tournament_of(versions, "backlog", games=8 if quick else 6)  # waits well past the redispatch age
    received_before = dep.received()
    t0 = time.monotonic()
    ids = [m.pk for m in start_tournament(tournament)]
    wait(all_finished(ids), 1800, "every match")
    received = dep.received() - received_before
    longest = Match.objects.filter(pk__in=ids).aggregate(w=Max(F("started_at") - F("dispatched_at")))["w"]
    return {"seconds_to_all_finished": round(time.monotonic() - t0, 2), "runs_received": received,
            "longest_wait_in_queue_s": round(longest.total_seconds(), 1),
            "redispatch_s": int(CLUSTER_ENV["LUDUS_REDISPATCH_SECONDS"]), "duplicate_messages": received - len(ids),
            **invariants(tournament)}


def worker_killed(dep: Deployment, versions: list[Any], quick: bool) -> dict[str, Any]:
    from tournaments.models import Match
    from tournaments.scheduling import start_tournament

    tournament = tournament_of(versions[:2], "worker killed")
    [match] = start_tournament(tournament)
    wait(lambda: Match.objects.filter(pk=match.pk, status="running").exists(), 300, "the match to run")
    owner_pid = int(Match.objects.get(pk=match.pk).lease_owner.split(":")[1])
    victim = next(name for name, process in dep.cluster.processes
                  if name in dep.workers and os.getpgid(owner_pid) == process.pid)
    os.killpg(os.getpgid(owner_pid), signal.SIGKILL)
    killed = time.monotonic()
    dep.workers.remove(victim)
    wait(lambda: Match.objects.filter(pk=match.pk, status="running", attempts=2).exists()
         or Match.objects.filter(pk=match.pk, status="finished").exists(), 600, "the match to run again")
    again = round(time.monotonic() - killed, 2)
    wait(all_finished([match.pk]), 600, "the match to finish")
    dep.start_worker(f"{victim}-restarted")
    return {"seconds_to_running_again": again, "lease_s": int(CLUSTER_ENV["LUDUS_LEASE_SECONDS"]),
            "reaper_s": int(CLUSTER_ENV["LUDUS_REAPER_SECONDS"]), **invariants(tournament)}


SCENARIOS: dict[str, Callable[[Deployment, list[Any], bool], dict[str, Any]]] = {
    "broken worker": broken_worker, "database outage": database_outage, "broker down at start": broker_down_at_start,
    "broker restart": broker_restart, "backlog": backlog, "worker killed": worker_killed,
}


def run(quick: bool, only: list[str]) -> dict[str, Any]:
    from benchmarks.cluster import Cluster, setup_django

    with tempfile.TemporaryDirectory(prefix="ludus-recovery-") as tmp, Cluster(Path(tmp)) as cluster:
        setup_django(cluster)
        from django.conf import settings

        from benchmarks.load import make_versions

        db = settings.DATABASES["default"]
        proxy = TcpProxy(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
        try:
            dep = Deployment(cluster, proxy)
            for name in ("a", "b"):
                dep.start_worker(name)
            dep.start_beat()
            versions = make_versions(4 if quick else 6)
            results = {}
            for name, scenario in SCENARIOS.items():
                if only and name not in only:
                    continue
                print(f"-- {name}", flush=True)
                results[name] = scenario(dep, versions, quick)
                print(json.dumps(results[name]), flush=True)
        finally:
            proxy.close()
    return {"settings": CLUSTER_ENV, "quick": quick, "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.recovery", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller tournaments and shorter outages")
    parser.add_argument("--only", default="", help="comma-separated scenario names (default: all)")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    report = run(args.quick, [s.strip() for s in args.only.split(",") if s.strip()])
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
