"""Per-language seats (docs/bots.md, "Languages"): each starter kit's start-up, decide round trip and memory, paired
with Python's in the same rounds (run by `python -m benchmarks.sandbox --language L ...`).

Each kit (examples/bots/<language>/; for Python, the SDK answering at once: benchmarks/seat_driver.py) is built
once in the build sandbox (the build's wall time is reported), then in every round each language in turn starts a
fresh `SandboxedSeat` (control group and freezer on, as in a match) and is sent seat 0's decisions of one captured
3-player Evolution game:
- start: from nothing to its first reply (unpacking, the uid lease, the group, bwrap, the runtime's start-up);
- decide: the median `SandboxedSeat.decide` after the first, paused between decisions as in a match (JavaScript
  and Java seats frozen, their RunLimits; the others waiting unfrozen);
- memory: the peak of the seat's control group (the memory charged to it: heaps and stacks, not the runtime's
  shared file pages, which the host's page cache holds once for all seats).
One unmeasured seat per language first warms what a worker caches once. Ratios are per round against Python's,
then summarised (median and the spread: min and max), so that a busy machine slows every language alike.
"""

from __future__ import annotations

import io
import statistics
import time
import zipfile
from pathlib import Path
from typing import Any

from benchmarks.seat_driver import CLOCK, ECHO_BOT, capture
from engine import protocol
from tournaments.languages import PYTHON, read_manifest
from tournaments.uploads import UploadLimits
from workers.sandbox.build import build_bot
from workers.sandbox.seat import SandboxConfig, SandboxedSeat
from workers.seats import SeatDied

KITS = Path(__file__).resolve().parent.parent / "examples" / "bots"


def kit(language: str) -> tuple[bytes, str]:
    if language == "python":
        return ECHO_BOT, "main.py"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted((KITS / language).iterdir()):
            if path.is_file() and path.name != "README.md":
                archive.writestr(path.name, path.read_bytes())
    return out.getvalue(), f"{language}.zip"


class Kit:
    def __init__(self, language: str) -> None:
        self.language = language
        self.source, self.filename = kit(language)
        self.manifest = PYTHON if language == "python" else read_manifest((KITS / language / "ludus.toml").read_bytes())
        started = time.monotonic()
        built = build_bot(self.source, self.filename, self.manifest, UploadLimits())
        self.build_s = time.monotonic() - started if self.manifest.compiled else 0.0
        if not built.ok:
            raise SystemExit(f"the {language} kit did not build:\n{built.log}")
        self.artifact = built.artifact

    def play(self, decisions: list[tuple[int, dict[str, Any], Any]]) -> dict[str, Any]:
        seat = SandboxedSeat(self.source, self.filename, SandboxConfig(), "bwrap", self.manifest, self.artifact)
        hello = protocol.hello("evolution", "bench", 0, 3, {}, CLOCK)
        try:
            started = time.monotonic()
            seat.start(hello)
            seat.settle(time.monotonic() + 5)
            times = []
            for seq, view, decision in decisions:
                t0 = time.monotonic()
                try:
                    reply = seat.decide(seq, view, decision, CLOCK["bank_ms"])
                except SeatDied as exc:
                    raise SystemExit(f"the {self.language} kit died: {exc}\n{seat.log()}") from None
                times.append(time.monotonic() - t0)
                if reply.fault:
                    raise SystemExit(f"the {self.language} kit faulted: {reply.fault} {reply.detail}\n{seat.log()}")
                seat.pause()
            group = seat.group
            peak = group.peak_memory() if group is not None else None
            return {"start": time.monotonic() - started - sum(times[1:]), "decide": statistics.median(times[1:]),
                    "memory": peak}
        finally:
            seat.finish({"type": "result", "outcome": {}})


def run_languages(languages: list[str], rounds: int) -> dict[str, Any]:
    decisions = [(seq, view, d) for seq, view, d in capture() if d.seat == 0]
    kits = {name: Kit(name) for name in ["python", *[n for n in languages if n != "python"]]}
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in kits}
    for one in kits.values():  # a first seat per runtime warms what every worker caches (the engine copy, the SDK)
        one.play(decisions[:2])
    for _ in range(rounds):
        for name, one in kits.items():
            samples[name].append(one.play(decisions))
    report: dict[str, Any] = {"rounds": rounds, "decisions": len(decisions), "languages": {}}
    for name, rows in samples.items():
        entry: dict[str, Any] = {"build_s": round(kits[name].build_s, 2)}
        for key in ("start", "decide", "memory"):
            values = [r[key] for r in rows if r[key] is not None]
            if not values:
                continue
            scale = 1000 if key != "memory" else 1 / (1 << 20)
            unit = "ms" if key != "memory" else "MiB"
            entry[f"{key}_{unit}"] = spread([v * scale for v in values])
            ratios = [r[key] / p[key] for r, p in zip(rows, samples["python"], strict=True) if r[key] and p[key]]
            entry[f"{key}_vs_python"] = spread(ratios)
        report["languages"][name] = entry
    return report


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2), "max": round(max(values), 2)}


def print_languages(report: dict[str, Any]) -> None:
    print(f"{report['rounds']} rounds, {report['decisions']} decisions of seat 0 per round; median [min, max]")
    head = f"{'language':<12}{'build s':>9}  {'start ms':>22}  {'decide ms':>20}  {'peak MiB':>20}  {'start/py':>18}"
    print(head)
    for name, row in report["languages"].items():
        print(f"{name:<12}{row['build_s']:>9}  {_cell(row, 'start_ms'):>22}  {_cell(row, 'decide_ms'):>20}  "
              f"{_cell(row, 'memory_MiB'):>20}  {_cell(row, 'start_vs_python'):>18}")


def _cell(row: dict[str, Any], key: str) -> str:
    found = row.get(key)
    return f"{found['median']} [{found['min']}, {found['max']}]" if found else "-"
