"""Golden analysis results (docs/analysis.md): a few decisions of both games' stored replays, every number of each
decision's result (estimates, playouts, best, losses, mark, events) pinned as a sha256 digest per decision.

An analysis's results are stored and shown (the cache per match, seat, bot and games), so a change that makes it
cheaper must leave every byte alone. Each case analyses every `every`-th decision of one seat (the decisions
between are skipped, as a resumed analysis skips those it has: the bots are still walked through every step).

Regenerate only after a deliberate change of the results (it refuses to overwrite unless asked):

    python tests/replays/test_analysis_golden.py --write            # writes the file when it is missing
    python tests/replays/test_analysis_golden.py --write --overwrite
    python tests/replays/test_analysis_golden.py                    # compares, prints each case
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden" / "analysis.json"
DATA = Path(__file__).resolve().parent / "data"
FORMAT = 1


class Case(NamedTuple):
    game: str
    seat: int
    bot: str
    games: int
    every: int  # analyse the seat's decisions 0, every, 2 * every, ... and skip the others


CASES = {
    "evolution-seat1-greedy-g3": Case("evolution", 0, "greedy", 3, 9),
    "evolution-seat2-random-g4": Case("evolution", 1, "random", 4, 25),
    "marine-seat1-greedy-g3": Case("marine", 0, "greedy", 3, 37),
    "marine-seat2-eps30-g2": Case("marine", 1, "greedy_eps30", 2, 51),
}
SEED = 11


def run_case(name: str) -> list[dict[str, Any]]:
    """Each analysed decision: its step, best option and mark, and the digest of its whole result."""
    from replays import analysis
    from replays.format import canonical_json

    case = CASES[name]
    document = json.loads((DATA / f"branch_parent_{case.game}.json").read_text(encoding="utf-8"))
    steps = analysis.decision_steps(document, case.seat)
    kept = set(steps[::case.every])
    plan = analysis.Plan(document, case.seat, case.bot, case.games, SEED)
    return [{"step": result["step"], "best": result["best"], "mark": result["mark"],
             "sha256": hashlib.sha256(canonical_json(result)).hexdigest()}
            for result in analysis.analyse(plan, skip=[step for step in steps if step not in kept])]


def load_golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("case", [pytest.param(name, marks=pytest.mark.slow) if name.startswith("marine") else name
                                  for name in CASES])
def test_an_analysis_gives_the_recorded_results(case: str) -> None:
    expected = load_golden()["cases"].get(case)
    assert expected is not None, f"{case} is not in {GOLDEN.name}: see this module's docstring"
    assert run_case(case) == expected


def test_every_recorded_case_is_still_analysed() -> None:
    assert sorted(load_golden()["cases"]) == sorted(CASES)


def record() -> dict[str, Any]:
    return {"format": FORMAT, "regenerate": "python tests/replays/test_analysis_golden.py --write --overwrite",
            "seed": SEED, "cases": {name: run_case(name) for name in CASES}}


def main(argv: Sequence[str] | None = None) -> int:
    from golden import golden_main  # tests/golden.py: on pytest's path, and on the script's (below)

    def check() -> Iterator[tuple[str, bool]]:
        golden = load_golden()["cases"]
        return ((name, run_case(name) == golden.get(name)) for name in CASES)

    return golden_main(argv, prog="python tests/replays/test_analysis_golden.py", what="the golden analysis results",
                       path=GOLDEN, record=record, check=check)


if __name__ == "__main__":
    sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    sys.exit(main())
