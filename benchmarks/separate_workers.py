"""Three workers set up as if on three machines, joined only by PostgreSQL and Redis.

Each "machine" gets its own copy of the code (`git archive HEAD`, no virtualenv of its own: PYTHONPATH points at the
copy), its own working directory, temp directory and HOME, and a Celery worker started there. Nothing on disk is
shared with the others or with this driver. The driver plays the web machine: it creates round-robin matches of
uploaded, sandboxed bots and sends them; then it checks that every worker ran some, that each match finished
exactly once, and that each worker imported its code from its own copy.

    python -m benchmarks.separate_workers            # 3 workers, 36 matches
    python -m benchmarks.separate_workers -n 60 --machines 3 --json artifacts/separate_workers.json

(The one thing the three share on this host that separate machines would not is the kernel: the sandbox's uid
leases under /run/ludus-sandbox are per host by design, so here all three draw from one pool of uids.)
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.cluster import ROOT, TIMINGS, Cluster, setup_django


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.separate_workers", description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--matches", type=int, default=36)
    parser.add_argument("--machines", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432/postgres",
                        help="the PostgreSQL server (a database is created on it and dropped)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ludus-machines-") as tmp, \
            Cluster(Path(tmp) / "driver", server_url=args.server) as cluster:
        setup_django(cluster)
        report = run(cluster, Path(tmp), args.matches, args.machines)
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


if __name__ == "__main__":
    raise SystemExit(main())
