"""What a match costs beyond its game: the engine alone, the runner with built-in bots, the runner with uploaded
sandboxed bots, on the same seeds, paired.

    python -m benchmarks.match                                   # a table
    python -m benchmarks.match --json --quick                    # one JSON object, a few seeds (under 3 minutes)
    python -m benchmarks.match --json --baseline /tmp/main       # and another checkout, side by side

Each checkout runs in a process of its own (benchmarks/match_driver.py) on a database of its own, created on the
PostgreSQL server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432/ludus) and dropped at the end. For
every seed, each checkout in turn (the order alternates) plays that seed four ways (see the driver), so a busy
machine slows all of them alike; the ratios are per seed, then the median (and the range) over seeds.

The figures (JSON keys):
- sandboxed_over_engine: a sandboxed match (claim to recorded result) over the same game played by the engine alone
  with the example bot's `act` called in-process;
- builtin_over_engine: a built-in match through the runner over the engine alone with the same built-in bots;
- matches_per_min_sandboxed: 60 / the median sandboxed match, one runner process;
- protocol_us_per_decision: the sandboxed game (the runner's play phase without starting the seats, to every seat
  booted, and stopping them: seats_start and seats_stop, timed by the driver around workers.seats' start_seats and
  finish_seats) minus the engine-alone game, plus the engine-alone's view building, per decision: what the protocol
  costs, views included;
- decide_bytes_median: the decide lines sent to the sandboxes, newline included;
- cpu: the same in CPU time instead of wall time (the worker process with all its threads, plus the seats' own
  CPU over the game, read from their control groups once every seat is booted and again before the result: this
  checkout's driver runs every checkout, so all are measured alike; for the protocol, the worker's CPU in the game
  loop only): sandboxed_over_engine, builtin_over_engine,
  protocol_us_per_decision, and sandboxed_ms / seats_ms per match. On a machine that other work keeps busy, wall
  time measures the queue for the CPU as much as the code; CPU time does not (cgroups off: seats_ms is 0);
- result_statements (median; _max), competition_locks: the result write (tournaments.services.record_result) of
  a sandboxed match;
- fixed_ms: the fixed part of a match, built-in and sandboxed: the runner's claim, verify, digest, store and record
  phases added up (a checkout without some of them counts 0 for those). With --broker URL the drivers send to that
  Redis, as a deployed worker does (the runner's verification goes out as a message: its cost is what the runner
  waits for, the send, or its hand-over to a sender thread (workers/sender.py), whose send the driver then waits
  for outside the match's wall time and inside its CPU time; each checkout on a queue of its own, emptied at the
  end); without it a checkout that verifies after the result verifies in its driver, inside its verify phase.
Each checkout first plays --warmup unmeasured matches (default 1). With --baseline, `baseline` holds the same for
that checkout and `over_baseline` the ratios. Every checkout plays on the same one CPU (`pinned_cpu`). Warm seats are on
(`--warm 8`, LUDUS_WARM_SEATS): each version's sandbox plays its matches in turn; `--warm 0` starts every seat anew.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import uuid
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from benchmarks.engine import pin_to_one_core

ROOT = Path(__file__).resolve().parents[1]
DRIVER = Path(__file__).resolve().parent / "match_driver.py"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ludus"
TARGETS = {"sandboxed_over_engine": 3.0, "builtin_over_engine": 1.3, "matches_per_min_over_baseline": 5.0,
           "protocol_us_per_decision": 250.0, "decide_bytes_median": 1024, "result_statements": 8,
           "competition_locks": 1}
FIXED_PHASES = ("claim", "verify", "digest", "store", "record")  # the fixed part of a match, beside its game
WARMUP_SEED = 1000  # the unmeasured matches' seeds: 1000, 1001, ... (never one of the measured 1..N)


class Checkout:
    """A driver process on its own database."""

    def __init__(self, root: Path, server_url: str, game: str, players: int, cgroups: bool, warm: int,
                 broker: str | None = None) -> None:
        import psycopg

        self.root, self.broker = root, broker
        self.name = f"ludus_bench_match_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        self.admin = urlsplit(server_url)._replace(path="/postgres").geturl()
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_", "LUDUS_"))}
        env.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1", PYTHONPATH=str(root),
                   DATABASE_URL=urlsplit(server_url)._replace(path=f"/{self.name}").geturl(), LOG_LEVEL="WARNING")
        if not cgroups:
            env["LUDUS_SANDBOX_WITHOUT_CGROUPS"] = "1"
        env["LUDUS_WARM_SEATS"] = str(warm)  # a checkout without warm seats ignores it
        if broker:
            env.update(CELERY_BROKER_URL=broker, LUDUS_QUEUE=self.name)
        self.proc = subprocess.Popen(
            [sys.executable, str(DRIVER), "--root", str(root), "--game", game, "--players", str(players)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=root, env=env)
        self._answer()

    def _answer(self) -> dict[str, Any]:
        out: IO[str] | None = self.proc.stdout
        assert out is not None
        line = out.readline()
        if not line:
            raise RuntimeError(f"the match driver on {self.root} exited with {self.proc.wait()}")
        found: dict[str, Any] = json.loads(line)
        return found

    def play(self, seed: int) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{seed}\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        import psycopg

        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        if self.broker:  # the messages nobody consumed: the queue's lists (one per priority step) and its sets
            import redis

            client = redis.Redis.from_url(self.broker)
            for key in client.scan_iter(f"*{self.name}*"):
                client.delete(key)


def spread(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1], "n": len(ordered)}


def figures(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The paired figures of one checkout's samples (one per seed)."""

    def play_ms(way: dict[str, Any]) -> float:
        phases = way["phases"]
        return float(phases["play"] - phases["seats_start"] - phases["seats_stop"])

    protocol = [((play_ms(s["sandboxed"]) / 1000 - s["engine_example"]["seconds"] + s["engine_example"]["view_seconds"])
                 / s["engine_example"]["decisions"] * 1e6) for s in samples]
    sandboxed = [s["sandboxed"]["seconds"] for s in samples]
    # CPU seconds: the worker process (all its threads) plus, for the sandboxed match, its seats' moves.
    cpu_sandboxed = [s["sandboxed"]["cpu_seconds"] + s["sandboxed"]["seats_cpu_seconds"] for s in samples]
    cpu_protocol = [(s["sandboxed"]["play_cpu_seconds"] + s["sandboxed"]["seats_cpu_seconds"]
                     - s["engine_example"]["cpu_seconds"] + s["engine_example"]["view_seconds"])
                    / s["engine_example"]["decisions"] * 1e6 for s in samples]
    phases = sorted({p for s in samples for way in ("builtin", "sandboxed") for p in s[way]["phases"]})

    def fixed_ms(way: dict[str, Any]) -> float:
        return sum(float(way["phases"].get(phase, 0.0)) for phase in FIXED_PHASES)
    decide_bytes = [n for s in samples for n in s["decide_bytes"]]
    return {
        "sandboxed_over_engine": spread([s["sandboxed"]["seconds"] / s["engine_example"]["seconds"] for s in samples]),
        "builtin_over_engine": spread([s["builtin"]["seconds"] / s["engine_builtin"]["seconds"] for s in samples]),
        "matches_per_min_sandboxed": 60 / statistics.median(sandboxed),
        "protocol_us_per_decision": spread(protocol),
        "decide_bytes_median": statistics.median(decide_bytes) if decide_bytes else None,
        "cpu": {
            "sandboxed_over_engine": spread([c / s["engine_example"]["cpu_seconds"]
                                             for s, c in zip(samples, cpu_sandboxed, strict=True)]),
            "builtin_over_engine": spread([s["builtin"]["cpu_seconds"] / s["engine_builtin"]["cpu_seconds"]
                                           for s in samples]),
            "sandboxed_ms": spread([c * 1000 for c in cpu_sandboxed]),
            "seats_ms": spread([s["sandboxed"]["seats_cpu_seconds"] * 1000 for s in samples]),
            "protocol_us_per_decision": spread(cpu_protocol),
        },
        # The first result of a version in a ladder also creates its rating rows (two more statements).
        "result_statements": statistics.median(s["sandboxed"]["statements"].get("record", 0) for s in samples),
        "result_statements_max": max(s["sandboxed"]["statements"].get("record", 0) for s in samples),
        "competition_locks": max(s["sandboxed"]["competition_locks"] for s in samples),
        "progress_statements": spread([s["sandboxed"]["statements"].get("progress", 0) for s in samples]),
        "decisions": spread([s["engine_example"]["decisions"] for s in samples]),
        "ms": {
            "engine_builtin": spread([s["engine_builtin"]["seconds"] * 1000 for s in samples]),
            "builtin": spread([s["builtin"]["seconds"] * 1000 for s in samples]),
            "engine_example": spread([s["engine_example"]["seconds"] * 1000 for s in samples]),
            "engine_example_views": spread([s["engine_example"]["view_seconds"] * 1000 for s in samples]),
            "sandboxed": spread([x * 1000 for x in sandboxed]),
        },
        "fixed_ms": {way: spread([fixed_ms(s[way]) for s in samples]) for way in ("builtin", "sandboxed")},
        "phases_ms": {way: {p: statistics.median(s[way]["phases"].get(p, 0.0) for s in samples) for p in phases}
                      for way in ("builtin", "sandboxed")},
    }


def run(seeds: list[int], baselines: list[Path], game: str, players: int, cgroups: bool,
        warm: int, warmup: int = 1, broker: str | None = None) -> dict[str, Any]:
    server = os.environ.get("DATABASE_URL", DEFAULT_URL)
    # Every checkout's driver, and so its runner and its seats, on one CPU. A runner leases a CPU for each match,
    # first a random one, then the one it had (workers/sandbox/pinning.py), so two drivers often kept to different
    # CPUs, and a VM's CPUs do not run at one speed: two drivers of one commit differed by up to 1.35x in CPU a
    # decision, by 0.97-1.03x on one CPU.
    cpu = pin_to_one_core()
    checkouts: list[Checkout] = []
    try:
        for root in [ROOT, *baselines]:
            checkouts.append(Checkout(root, server, game, players, cgroups, warm, broker))
        # Unmeasured matches first: a driver's first matches pay for imports, caches and, with warm seats on, for
        # starting the sandboxes the pool then keeps; measured, they made whichever checkout went first look slower.
        for i in range(warmup):
            for checkout in checkouts if i % 2 == 0 else reversed(checkouts):
                checkout.play(WARMUP_SEED + i)
        samples: list[list[dict[str, Any]]] = [[] for _ in checkouts]
        for i, seed in enumerate(seeds):
            order = list(range(len(checkouts)))
            for k in order if i % 2 == 0 else reversed(order):
                samples[k].append(checkouts[k].play(seed))
    finally:
        for checkout in checkouts:
            checkout.close()
    report: dict[str, Any] = {"game": game, "players": players, "seeds": seeds, "cgroups": cgroups, "warm_seats": warm,
                              "warmup": warmup, "broker": bool(broker), "pinned_cpu": cpu,
                              **figures(samples[0]), "targets": TARGETS, "cpus": os.cpu_count()}
    if baselines:
        base = figures(samples[1])
        report["baseline"] = {"root": str(baselines[0]), **base}
        report["over_baseline"] = {
            "matches_per_min_sandboxed": report["matches_per_min_sandboxed"] / base["matches_per_min_sandboxed"],
            "sandboxed_ms": report["ms"]["sandboxed"]["median"] / base["ms"]["sandboxed"]["median"],
            "builtin_ms": report["ms"]["builtin"]["median"] / base["ms"]["builtin"]["median"],
            "cpu_sandboxed_ms": report["cpu"]["sandboxed_ms"]["median"] / base["cpu"]["sandboxed_ms"]["median"],
            **{f"fixed_ms_{way}": report["fixed_ms"][way]["median"] / base["fixed_ms"][way]["median"]
               for way in ("builtin", "sandboxed")},
        }
        report["matches_per_min_over_baseline"] = report["over_baseline"]["matches_per_min_sandboxed"]
    return report


def print_table(report: dict[str, Any]) -> None:
    rows = [("sandboxed / engine alone", report["sandboxed_over_engine"]["median"], "x"),
            ("built-in through the runner / engine alone", report["builtin_over_engine"]["median"], "x"),
            ("sandboxed matches per minute, one runner", report["matches_per_min_sandboxed"], "/min"),
            ("protocol per decision, views included", report["protocol_us_per_decision"]["median"], "us"),
            ("decide message, median", report["decide_bytes_median"] or 0, "B"),
            ("result write: statements", report["result_statements"], ""),
            ("result write: competition locks", report["competition_locks"], "")]
    base = report.get("baseline")
    print(f"{report['game']}, {report['players']} players, seeds {report['seeds']}")
    print(f"{'':46} {'this checkout':>14} {'baseline' if base else '':>14}")
    for (name, value, unit), key in zip(rows, ["sandboxed_over_engine", "builtin_over_engine",
                                                "matches_per_min_sandboxed", "protocol_us_per_decision",
                                                "decide_bytes_median", "result_statements", "competition_locks"],
                                        strict=True):
        other = ""
        if base:
            found = base[key]
            other = f"{(found['median'] if isinstance(found, dict) else found or 0):>12.1f}{unit}"
        print(f"{name:46} {value:>12.1f}{unit} {other}")
    cpu = report["cpu"]
    print(f"CPU time: sandboxed / engine alone {cpu['sandboxed_over_engine']['median']:.1f}x, built-in "
          f"{cpu['builtin_over_engine']['median']:.2f}x, protocol {cpu['protocol_us_per_decision']['median']:.0f} us "
          f"per decision" + (f" (baseline {base['cpu']['sandboxed_over_engine']['median']:.1f}x, "
                             f"{base['cpu']['protocol_us_per_decision']['median']:.0f} us)" if base else ""))
    for way in ("builtin", "sandboxed"):
        print(f"{way} phases (ms, median): " + ", ".join(f"{p} {v:.1f}" for p, v in report["phases_ms"][way].items()))
        fixed = report["fixed_ms"][way]
        print(f"{way} fixed part ({' + '.join(FIXED_PHASES)}): {fixed['median']:.1f} ms ({fixed['min']:.1f}-"
              f"{fixed['max']:.1f})" + (f", baseline {base['fixed_ms'][way]['median']:.1f} ms" if base else ""))
    if base:
        print(f"sandboxed matches per minute over the baseline: {report['matches_per_min_over_baseline']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=12, help="how many seeds (default 12; --quick: 4)")
    parser.add_argument("--quick", action="store_true", help="4 seeds: under 3 minutes")
    parser.add_argument("--warmup", type=int, default=1,
                        help="unmeasured matches each checkout plays first, alternating (default 1)")
    parser.add_argument("--game", default="evolution", choices=["evolution", "marine"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--no-cgroups", action="store_true",
                        help="sandboxes without their control groups (hosts that cannot delegate them)")
    parser.add_argument("--warm", type=int, default=8,
                        help="LUDUS_WARM_SEATS for every checkout (default 8: the benchmark's 4 versions stay warm; "
                             "0: every seat starts and stops with its match)")
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit, measured side by side")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--broker", help="a Redis URL the drivers send to, as a deployed worker (see fixed_ms)")
    args = parser.parse_args()
    if args.warmup < 0:
        parser.error(f"--warmup must be 0 or more, got {args.warmup}")
    seeds = list(range(1, 1 + (4 if args.quick else args.seeds)))
    report = run(seeds, [args.baseline.resolve()] if args.baseline else [], args.game, args.players,
                 not args.no_cgroups, args.warm, args.warmup, args.broker)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
