"""What only a replay says about a version's play: its CPU, its time per move and its timeouts, for version tests
(tournaments/version_tests.py, which may not read replays) and the bot page's head-to-head
(docs/version-tests.md)."""

from __future__ import annotations

from typing import Any

from replays.models import Replay
from tournaments.models import Match, VersionTestGame
from tournaments.version_tests import Measure, advance_running_tests, advance_test


def measure_games(match_ids: list[int]) -> dict[int, dict[int, dict[str, Any]]]:
    """match id -> seat -> {"cpu_ms", "moves", "timeouts", "ms": [each move's milliseconds]} from the replays
    (cpu_ms: the sandbox's CPU counter, or the decision time of a seat that has none, a built-in bot)."""
    measured: dict[int, dict[int, dict[str, Any]]] = {}
    for replay in Replay.objects.filter(match_id__in=match_ids).only("match_id", *Replay.ACTION_LOG_FIELDS):
        seats: dict[int, dict[str, Any]] = {}
        for record in replay.action_log():
            if record.get("forced"):  # a branch's replayed prefix: no bot chose it
                continue
            seat = seats.setdefault(record["seat"], {"cpu_ms": 0, "moves": 0, "timeouts": 0, "ms": []})
            seat["moves"] += 1
            # A sandboxed seat's CPU counter; a built-in bot plays in the runner's process: its decision time.
            seat["cpu_ms"] += int(record.get("cpu_ms", record.get("ms")) or 0)
            seat["timeouts"] += int(record.get("fault") == "timeout")
            seat["ms"].append(int(record.get("ms") or 0))
        measured[replay.match_id] = seats
    return measured


MEASURE: Measure = measure_games


def advance(test_id: int) -> str:
    """tournaments.version_tests.advance_test with the replays' measures."""
    return advance_test(test_id, MEASURE)


def advance_all() -> int:
    """Beat (workers.advance_version_tests): every running test, with the replays' measures."""
    return advance_running_tests(MEASURE)


def advance_after(match_id: int, outcome: str) -> str | None:
    """After a runner played a match: if it is a version test's game and the attempt ended (not requeued), advance
    its test now rather than at beat's next tick (the embedded runner has no beat). None for other matches."""
    if outcome not in (Match.Status.FINISHED, Match.Status.FAILED):
        return None
    test_id = VersionTestGame.objects.filter(match_id=match_id).values_list("test_id", flat=True).first()
    return advance(test_id) if test_id is not None else None
