"""Each way the sandbox kills a seat is counted once, by cause, in `ludus_sandbox_kills_total` (workers/metrics.py).

Real hostile bots (tests/workers/bots/) in real bwrap sandboxes, whole Evolution games; the counter is read from
this process's Prometheus registry, where the sandbox runs here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from workers.play import play_game
from workers.sandbox.config import SandboxConfig
from workers.sandbox.seat import SandboxedSeat
from workers.seats import Clock, InProcessSeat

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

BOTS = Path(__file__).resolve().parent / "bots"
CAUSES = ("timeout", "exited", "stopped", "no_hello", "bad_upload")


def kills() -> dict[str, float]:
    return {cause: REGISTRY.get_sample_value("ludus_sandbox_kills_total", {"cause": cause}) or 0.0
            for cause in CAUSES}


@pytest.mark.parametrize(("bot", "filename", "cause", "fault"), [
    ("loop_first.py", "main.py", "timeout", "timeout"),  # past its clock
    ("exit_at_once.py", "main.py", "exited", "died"),  # gone by itself: the rest of its tree is killed
    ("stale_seq.py", "main.py", "stopped", "stale_seq"),  # forfeits on faults while still running
    ("exit_at_once.py", "bot.exe", "bad_upload", None),  # not a .py or .zip
])
def test_it_counts_a_kill_by_its_cause(bot: str, filename: str, cause: str, fault: str | None) -> None:
    seat = SandboxedSeat((BOTS / bot).read_bytes(), filename, SandboxConfig(startup_ms=1500))
    before = kills()
    result = play_game("evolution", 2, 5, {}, [seat, InProcessSeat("random", "evolution", 6)],
                       Clock(move_ms=200, bank_ms=300), max_faults=3)
    after = kills()
    assert {c: after[c] - before[c] for c in CAUSES} == {c: float(c == cause) for c in CAUSES}
    assert result.forfeited[0]
    if fault is not None:
        assert fault in [a.get("fault") for a in result.actions if a["seat"] == 0]


def test_a_bot_that_plays_to_the_end_is_not_counted() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "bots" / "evolution_bot.py"
    seat = SandboxedSeat(example.read_bytes(), "main.py", SandboxConfig(startup_ms=1500))
    before = kills()
    result = play_game("evolution", 2, 5, {}, [seat, InProcessSeat("random", "evolution", 6)],
                       Clock(move_ms=1000, bank_ms=5000), max_faults=3)
    assert kills() == before
    assert not result.forfeited[0]
