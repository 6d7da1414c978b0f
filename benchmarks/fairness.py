"""Fairness: what each thief of tests/workers/bots takes from an honest bot that uses 60 % of its move clock
(tests/workers/bots/honest_60.py), one match at a time and two at once, against a baseline checkout.

Each match is played as the runner plays it: its thread leases a CPU and is pinned to it (workers/sandbox/pinning.py),
so the honest bot and the thief share one CPU. Two at once: two matches against the same thief start together while
every CPU but one is leased elsewhere (another worker's matches), so the second has no CPU of its own. The table gives
the honest bot's wall time per move (its first, with the start-up allowance, left out), median, p95 and max, its
timeouts, and the thief's CPU (from its control group's counter) during the honest bot's moves. `honest_60.py` as the
opponent is the control. Matches of this checkout and the baseline alternate, seed by seed, so that a busy machine slows
both alike.

    python -m benchmarks.fairness                               # this checkout
    python -m benchmarks.fairness --baseline /tmp/main --seeds 3 # and another checkout, side by side
    python -m benchmarks.fairness --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "workers" / "bots"
OPPONENTS = ["honest_60.py", "kernel_thief.py", "session_spinners.py", "ponder_child.py", "ponder_thread.py",
             "ponder_late.py", "ponder_big.py"]
MOVE_MS, BANK_MS = 100, 3000

# Run in a checkout (this one or the baseline), as a process of its own: plays one or two matches and prints JSON.
DRIVER = """
import json, os, sys, tempfile, threading
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from workers.play import play_game
from workers.seats import Clock
try:
    from workers.sandbox import pinning
    from workers.sandbox.seat import SandboxConfig, SandboxedSeat
except ImportError:  # a baseline from before the sandbox package (workers/sandbox/)
    from workers import pinning
    from workers.sandbox import SandboxConfig, SandboxedSeat

bots, opponent, mode, seed, move_ms, bank_ms = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), \\
    int(sys.argv[5]), int(sys.argv[6])
locks = tempfile.mkdtemp(prefix="ludus-fairness-")
config = SandboxConfig(startup_ms=1500)
out = []

def seat(name):
    return SandboxedSeat(open(os.path.join(bots, name), "rb").read(), name, config)

def match(seed):
    with pinning.one_cpu(lock_dir=locks):
        thief, honest = seat(opponent), seat("honest_60.py")
        stolen = []
        real = honest.decide
        def decide(seq, view, decision, bank_ms):
            group = thief.group
            before = group.cpu_ns() if group is not None and not group.removed else None
            reply = real(seq, view, decision, bank_ms)
            if before is not None and not group.removed:
                stolen.append(group.cpu_ns() - before)
            return reply
        honest.decide = decide
        result = play_game("evolution", 2, seed, {}, [thief, honest], Clock(move_ms, bank_ms), 3)
    mine = [a for a in result.actions if a["seat"] == 1]
    ended = [i for i, a in enumerate(mine) if a.get("fault") in ("timeout", "died", "oom")]
    out.append({"ms": [a["ms"] for a in mine[1:ended[0] if ended else None] if "fault" not in a],
                "timeouts": sum(a.get("fault") == "timeout" for a in mine), "forfeited": result.forfeited[1],
                "stolen_ms": sum(stolen) / 1e6})

if mode == "one":
    match(seed)
else:
    held = [pinning.take_cpu(locks) for _ in range(len(os.sched_getaffinity(0)) - 1)]
    threads = [threading.Thread(target=match, args=(seed + k * 1000,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print(json.dumps(out))
"""


def play(code: Path, opponent: str, mode: str, seed: int) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(code), "DEBUG": os.environ.get("DEBUG", "1")}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(BOTS), opponent, mode, str(seed), str(MOVE_MS),
                           str(BANK_MS)], cwd=code, env=env, capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def summary(matches: list[dict[str, Any]]) -> dict[str, Any]:
    ms = sorted(m for match in matches for m in match["ms"])
    return {"matches": len(matches), "moves": len(ms), "median_ms": statistics.median(ms) if ms else None,
            "p95_ms": ms[int(0.95 * (len(ms) - 1))] if ms else None, "max_ms": max(ms) if ms else None,
            "timeouts": sum(m["timeouts"] for m in matches), "forfeits": sum(m["forfeited"] for m in matches),
            "thief_cpu_ms_median": statistics.median(m["stolen_ms"] for m in matches)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit to measure side by side")
    parser.add_argument("--seeds", type=int, default=3, help="matches (one at a time) or pairs (two at once) each")
    parser.add_argument("--only", nargs="*", default=OPPONENTS, help="opponents to play (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    codes = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    played: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for opponent in args.only:
        for mode in ("one", "two"):
            for seed in range(args.seeds):
                for name, code in codes.items():  # alternating, seed by seed
                    played.setdefault((name, opponent, mode), []).extend(play(code, opponent, mode, seed))
    rows = {f"{name} {opponent} {mode}": summary(matches) for (name, opponent, mode), matches in played.items()}
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"honest_60.py: {MOVE_MS} ms a move, 60 % of it in CPU, {BANK_MS} ms bank; per-move wall ms of its moves")
    print(f"{'checkout':9} {'opponent':20} {'at once':7} {'moves':>5} {'median':>6} {'p95':>5} {'max':>5} "
          f"{'timeouts':>8} {'thief CPU ms/match':>18}")
    for (name, opponent, mode), matches in played.items():
        row = summary(matches)
        print(f"{name:9} {opponent:20} {mode:7} {row['moves']:5} {row['median_ms']:6} {row['p95_ms']:5} "
              f"{row['max_ms']:5} {row['timeouts']:8} {row['thief_cpu_ms_median']:18.0f}")


if __name__ == "__main__":
    main()
