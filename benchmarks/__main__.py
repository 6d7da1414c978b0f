"""Every benchmark behind one command: a table on stdout and one JSON file (artifacts/benchmarks.json).

    python -m benchmarks                     # everything, default sizes (about 15 minutes on 2 cores)
    python -m benchmarks --quick             # smaller runs of everything (a few minutes)
    python -m benchmarks --only engine,replay,rating      # a subset: engine sandbox throughput api replay rating

Sections:
- engine:     decisions per second per game, random and greedy bots, one core (benchmarks/engine.py);
- sandbox:    a seat's per-decision round trip and start-up, bwrap against bare, with its control group and freezer
              (benchmarks/sandbox.py);
- throughput: uploaded sandboxed bots through real Celery workers, 1 then 2 worker processes: matches per minute,
              the scaling ratio, the share of a match spent outside the game, replay bytes and database statements
              per match (benchmarks/load.py, benchmarks/cluster.py);
- api:        benchmarks/api.py when it exists, else the API latency measured in the throughput section;
- replay:     replay bytes per game and per decision for every game (greedy bots, engine only);
- rating:     one OpenSkill update for 2 to 6 seats, and the whole result transaction from the throughput run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("engine", "sandbox", "throughput", "api", "replay", "rating")


def run_module(module: str, *args: str, timeout: float = 3600) -> Any:
    """`python -m module *args`, whose stdout ends with one JSON document; return it parsed."""
    done = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{module} exited with {done.returncode}: {done.stderr[-2000:]}")
    out = done.stdout
    return json.loads(out[out.index("{"):])


def engine_section(quick: bool) -> dict[str, Any]:
    games, reps = ("5", "3") if quick else ("30", "5")
    report = run_module("benchmarks.engine", "--json", "--games", games, "--reps", reps)
    rows = [(f"engine {r['game']} {r['players']}p {r['bot']}", r["decisions_per_sec"], "decisions/s")
            for r in report["results"]]
    return {"report": report, "rows": rows}


def sandbox_section(quick: bool) -> dict[str, Any]:
    passes, starts = ("1", "5") if quick else ("5", "30")
    report = run_module("benchmarks.sandbox", "--json", "--passes", passes, "--starts", starts)
    rt, seat = report["round_trip"], report["seats"]["groups+freezer"]
    rows = [("sandbox round trip, seat (bwrap, group, freezer)", round(seat["round_trip"]["median_us"]), "us median"),
            ("sandbox round trip, bare pipe", round(rt["bare pipe"]["median_us"]), "us median"),
            ("sandbox start-up, seat to first reply", round(seat["start"]["median_us"] / 1000, 1), "ms median"),
            ("sandbox start-up, bwrap / bare", round(report["ratios"]["bwrap start / bare start"], 2), "ratio")]
    return {"report": report, "rows": rows}


def throughput_section(quick: bool) -> dict[str, Any]:
    """One throwaway deployment; n matches with 1 worker process, then n others with 2."""
    from benchmarks.cluster import Cluster, setup_django
    from benchmarks.load import ApiReader, check_exactly_once, latency_summary, make_matches, make_versions, run_matches

    n = 24 if quick else 120
    with tempfile.TemporaryDirectory(prefix="ludus-bench-") as tmp, Cluster(Path(tmp)) as cluster:
        setup_django(cluster)
        versions = make_versions(4)
        phases: dict[str, Any] = {}
        base = cluster.start_web()
        idle = ApiReader(base, 0, limit=30, interval=0.05)
        for workers in (1, 2):
            ids = make_matches(versions, n, f"{workers} worker(s)")
            names = [cluster.start_worker(f"w{workers}-{i}") for i in range(workers)]
            if workers == 1:
                idle = ApiReader(base, _tournament_of(ids[0]), limit=30, interval=0.05)
                idle.run()
            reader = ApiReader(base, _tournament_of(ids[0]), limit=400, interval=0.25)
            reader.start()
            try:
                phases[str(workers)] = run_matches(cluster, ids, names, deadline_s=3600, progress=False)
            finally:
                reader.done.set()
                reader.join()
            phases[str(workers)]["api_under_load"] = {
                **latency_summary(reader.latencies),
                "by_path": {path: latency_summary(v) for path, v in reader.by_path.items()}}
            phases[str(workers)]["exactly_once"] = check_exactly_once(ids)["exactly_once"]
            for name in names:
                cluster.stop(name)
        one, two = phases["1"], phases["2"]
        report = {"matches_per_phase": len(ids), "phases": phases, "api_idle": latency_summary(idle.latencies),
                  "scaling_ratio_2_over_1": round(two["matches_per_min"] / one["matches_per_min"], 2),
                  "replay": replay_bytes_in_database(), "db": statements_per_match(versions)}
    rows = [("throughput, 1 worker process", one["matches_per_min"], "matches/min"),
            ("throughput, 2 worker processes", two["matches_per_min"], "matches/min"),
            ("scaling ratio 2 / 1 workers", report["scaling_ratio_2_over_1"], "x"),
            ("time outside the game (2 workers)", round(100 * two.get("outside_share", 0), 1), "% of a match"),
            ("result transaction (record)", two.get("mean_phase_ms", {}).get("record"), "ms mean"),
            ("replay, stored (Evolution 2p short)", report["replay"]["mean_bytes"], "bytes/match"),
            ("replay, per decision", report["replay"]["bytes_per_decision"], "bytes"),
            ("database writes per match", report["db"]["writes"], "statements"),
            ("API p95 idle", report["api_idle"]["p95_ms"], "ms"),
            ("API p95 under load (2 workers)", two["api_under_load"]["p95_ms"], "ms")]
    return {"report": report, "rows": rows}


def _tournament_of(match_id: int) -> int:
    from tournaments.models import Match

    return int(Match.objects.get(pk=match_id).tournament_id or 0)


def replay_bytes_in_database() -> dict[str, Any]:
    from replays.models import Replay

    replays = list(Replay.objects.order_by("pk")[:200])
    sizes = [r.size + len(json.dumps(r.header)) + len(json.dumps(r.footer)) for r in replays]
    decisions = [len(r.action_log()) for r in replays]
    return {"replays": len(replays), "mean_bytes": round(statistics.fmean(sizes)),
            "mean_action_log_bytes": round(statistics.fmean(r.size for r in replays)),
            "mean_decisions": round(statistics.fmean(decisions), 1),
            "bytes_per_decision": round(sum(r.size for r in replays) / sum(decisions), 2)}


def statements_per_match(versions: list[Any]) -> dict[str, Any]:
    """The SQL one match costs, run here (built-in bots, no live-progress writes beyond the first)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from benchmarks.load import OPTIONS
    from tournaments.builtins import ensure_builtin
    from tournaments.scheduling import create_tournament, start_tournament
    from workers.runner import run_match

    entrants = [ensure_builtin("greedy", "greedy"), ensure_builtin("greedy-b", "greedy")]
    tournament = create_tournament(entrants, name="statements", game="evolution", players_per_table=2,
                                   options=OPTIONS, seed=3)
    [match] = start_tournament(tournament, enqueue=False)
    with CaptureQueriesContext(connection) as queries:
        outcome = run_match(match.pk)
    sql = [_verb(q["sql"]) for q in queries.captured_queries]
    writes = sum(1 for verb in sql if any(word in verb for word in ("INSERT", "UPDATE", "DELETE")))
    return {"outcome": outcome, "statements": len(sql), "writes": writes,
            "by_verb": {verb: sql.count(verb) for verb in sorted(set(sql))},
            "note": "main thread only; a sandboxed match adds one lease renewal per heartbeat, and a progress "
                    "row while somebody watches it"}


def _verb(sql: str) -> str:
    """A statement's first word; for a WITH statement, also the data-modifying verbs in it (the claim is
    `WITH ... UPDATE ... RETURNING`, the replay's write `WITH ... DELETE ... INSERT`): "WITH UPDATE"."""
    first = sql.lstrip().split(None, 1)[0].upper()
    if first != "WITH":
        return first
    found = sorted(set(re.findall(r"\b(INSERT|UPDATE|DELETE)\b", sql.upper())))
    return " ".join([first, *found])


def api_section(quick: bool, throughput: dict[str, Any] | None) -> dict[str, Any]:
    if importlib.util.find_spec("benchmarks.api") is not None:
        try:
            report = run_module("benchmarks.api", "--json", *(["--requests", "50"] if quick else []))
            return {"report": report, "rows": _api_rows(report)}
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            return {"report": {"error": str(exc)[-500:]}, "rows": [("benchmarks.api", "failed", "see JSON")]}
    if throughput is None:
        return {"report": {"note": "no benchmarks/api.py; run the throughput section for API latency"}, "rows": []}
    report = throughput["report"]
    return {"report": {"source": "throughput section", "idle": report["api_idle"]},
            "rows": [("API p95 idle (from throughput)", report["api_idle"]["p95_ms"], "ms")]}


def _api_rows(report: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """p95 per endpoint from benchmarks/api.py's JSON ({"latency": {endpoint: {"p50_ms", "p95_ms"}}, ...})."""
    latency = report.get("latency")
    if isinstance(latency, dict):
        return [(f"API p95 {name}", round(values["p95_ms"], 1), "ms") for name, values in latency.items()
                if isinstance(values, dict) and "p95_ms" in values]
    return [(f"API {key}", value, "ms") for key, value in _flatten(report) if key.endswith("p95_ms")][:12]


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [item for key, inner in value.items() for item in _flatten(inner, f"{prefix}{key} ".lstrip())]
    if isinstance(value, list):
        return [item for i, inner in enumerate(value) for item in _flatten(inner, f"{prefix}{i} ")]
    return [(prefix.strip(), value)]


def replay_section(quick: bool) -> dict[str, Any]:
    """Replay bytes per game (greedy bots; `ms` drawn like a quick bot's), both game sizes, engine only."""
    from engine.cli.simulate import play_one
    from engine.registry import game_names, load_game
    from replays import format as replay_format

    games = 3 if quick else 10
    report, rows = {}, []
    for name in game_names():
        game = load_game(name)
        options = game.validate_options({})
        for players in sorted({game.min_players, min(4, game.max_players)}):
            sizes, decisions = [], []
            for seed in range(games):
                record = play_one(game, players, seed, options, ["greedy"] * players)
                rng = random.Random(seed)
                actions = [{"seat": seat, "choice": choice, "ms": rng.randint(0, 30)}
                           for seat, choice in zip(_seats(game, players, seed, options, record.choices),
                                                   record.choices, strict=True)]
                sizes.append(len(replay_format.encode_actions(actions)))
                decisions.append(len(actions))
            key = f"{name} {players}p"
            report[key] = {"games": games, "mean_bytes": round(statistics.fmean(sizes)),
                           "mean_decisions": round(statistics.fmean(decisions)),
                           "bytes_per_decision": round(sum(sizes) / sum(decisions), 2)}
            rows.append((f"replay {key}", f"{report[key]['mean_bytes']} B, {report[key]['bytes_per_decision']} B/dec",
                         "action log, gzip"))
    return {"report": report, "rows": rows}


def _seats(game: Any, players: int, seed: int, options: dict[str, Any], choices: tuple[int, ...]) -> list[int]:
    state = game.new_state(players, seed, options)
    seats = []
    for choice in choices:
        decision = state.decision()
        seats.append(decision.seat)
        state.apply(decision.options[choice])
    return seats


def rating_section(quick: bool, throughput: dict[str, Any] | None) -> dict[str, Any]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    repeats = 200 if quick else 2000
    report, rows = {}, []
    for players in (2, 4, 6):
        teams = [[model.rating()] for _ in range(players)]
        ranks = [float(i + 1) for i in range(players)]
        start = time.perf_counter()
        for _ in range(repeats):
            model.rate(teams, ranks=ranks)
        us = (time.perf_counter() - start) / repeats * 1e6
        report[f"{players} seats"] = round(us, 1)
        rows.append((f"rating update, OpenSkill, {players} seats", round(us, 1), "us"))
    if throughput is not None:
        record = throughput["report"]["phases"]["2"].get("mean_phase_ms", {}).get("record")
        report["result transaction ms"] = record
        rows.append(("rating+replay+seats transaction", record, "ms mean"))
    return {"report": report, "rows": rows}


def print_table(rows: list[tuple[str, Any, str]]) -> None:
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'benchmark':<{width}}  {'value':>18}  unit")
    for label, value, unit in rows:
        print(f"{label:<{width}}  {value!s:>18}  {unit}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs of every section")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {SECTIONS}")
    parser.add_argument("--json", type=Path, default=ROOT / "artifacts" / "benchmarks.json")
    args = parser.parse_args(argv)
    wanted = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose from {SECTIONS}")
    results: dict[str, Any] = {}
    plain: dict[str, Callable[[bool], dict[str, Any]]] = {
        "engine": engine_section, "sandbox": sandbox_section, "throughput": throughput_section,
        "replay": replay_section}
    for section in wanted:
        print(f"... {section}", file=sys.stderr, flush=True)
        try:
            if section in plain:
                results[section] = plain[section](args.quick)
            elif section == "api":
                results[section] = api_section(args.quick, results.get("throughput"))
            else:
                results[section] = rating_section(args.quick, results.get("throughput"))
        except Exception as exc:  # one broken section must not lose the others' figures
            results[section] = {"report": {"error": f"{type(exc).__name__}: {exc}"},
                                "rows": [(section, "failed", str(exc)[:60])]}
    rows = [row for section in wanted for row in results[section]["rows"]]
    print_table(rows)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    document = {"quick": args.quick, "sections": {k: v["report"] for k, v in results.items()},
                "table": [list(r) for r in rows], "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    args.json.write_text(json.dumps(document, indent=2, default=str) + "\n")
    print(f"\nwritten: {args.json}")
    return 1 if any(r[1] == "failed" for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
