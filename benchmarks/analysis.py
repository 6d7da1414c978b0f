"""What a match analysis costs (docs/analysis.md#what-it-costs): decisions analysed per minute of one worker process,
by CPU time (which a busy machine does not inflate) and by wall clock, for one seat (`--seat`, default 1) of stored
replays of both games, greedy playouts, G games per option; the whole seat unless `--decisions` caps it. Each line
ends with the sha256 of the results (canonical JSON), so that two checkouts measured in pairs are seen to give the
same bytes.

    DEBUG=1 python -m benchmarks.analysis --games 8 tests/replays/data/branch_parent_evolution.json ...
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import time

import django


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("replays", nargs="+", help="replay documents (JSON, or gzipped JSON ending in .gz)")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--decisions", type=int, default=0, help="stop after this many decisions (0: all)")
    parser.add_argument("--seat", type=int, default=1, help="the seat analysed, counted from 1 (default 1)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from replays.analysis import Plan, analyse  # after django.setup: it reads the tournaments app's seeds
    from replays.format import canonical_json

    for path in args.replays:
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as handle:  # `manage.py replay export` gzips
            document = json.load(handle)
        cpu, wall, results = time.process_time(), time.perf_counter(), []
        for result in analyse(Plan(document, args.seat - 1, "greedy", args.games, 1)):
            results.append(result)
            if len(results) == args.decisions:
                break
        count = len(results)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps({"replay": path, "game": document["header"]["game"], "games": args.games,
                          "decisions": count, "cpu_s": round(cpu, 1), "wall_s": round(wall, 1),
                          "per_cpu_minute": round(count * 60 / cpu, 1),
                          "per_wall_minute": round(count * 60 / wall, 1),
                          "sha256": hashlib.sha256(canonical_json(results)).hexdigest()}))


if __name__ == "__main__":
    main()
