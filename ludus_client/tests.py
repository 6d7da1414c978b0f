"""`ludus test NEW BASE`: start a version test (docs/version-tests.md), follow its LLR, print its verdict."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.table import Table

from ludus_client.http import Api, ClientError
from ludus_client.matches import find_version


def version_id(api: Api, ref: str, game: str | None) -> int:
    """A version id, or a built-in bot's version, or NAME / OWNER/NAME / NAME@N of the game."""
    if ref.isdigit():
        return int(ref)
    if game is None:
        raise ClientError(f"{ref!r} is a name: give --game to find it (or a version id)")
    return int(find_version(api, ref, game)["id"])


def start(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    return dict(api.post("/api/tests/", json=body))


def follow(api: Api, test_id: int, console: Console, timeout_s: float) -> dict[str, Any]:
    """Poll the test until it ends (the API has no feed for tests); the test as it ended."""
    deadline = time.monotonic() + timeout_s
    with console.status(f"test {test_id}: waiting for its first batch") as status:
        while True:
            test = dict(api.get(f"/api/tests/{test_id}/"))
            lower, upper = test["bounds"]
            status.update(f"test {test_id}: {test['games_played']} games, LLR {test['llr']:.2f} in "
                          f"[{lower:.2f}, {upper:.2f}]")
            if test["status"] != "running":
                return test
            if time.monotonic() > deadline:
                raise ClientError(f"test {test_id} is still running after {timeout_s:.0f} s; follow it at "
                                  f"{api.url}/tests/{test_id}/")
            time.sleep(2)  # a poll interval: the deadline decides


def interval(estimate: dict[str, Any] | None) -> str:
    if not estimate:
        return "—"
    return f"{estimate['mean']:+.3f} [{estimate['low']:+.3f}, {estimate['high']:+.3f}]"


def verdict_table(test: dict[str, Any]) -> Table:
    table = Table(title=f"test {test['id']}: {test['new_label']} against {test['base_label']}: {test['status']}")
    table.add_column("")
    table.add_column("value")
    lower, upper = test["bounds"]
    for name, value in (("LLR", f"{test['llr']:.3f} in [{lower:.3f}, {upper:.3f}]"),
                        ("hypotheses", f"H0 lead {test['d0']}, H1 lead {test['d1']}; alpha {test['alpha']}, "
                                       f"beta {test['beta']}"),
                        ("games", str(test["games_played"])),
                        ("score-share lead (95 %)", interval(test["score"])),
                        ("win-rate lead (95 %)", interval(test["win_rate"])),
                        ("CPU", f"{test['cpu_ms']} ms"),
                        ("seed", str(test["seed"]) if test["seed"] is not None else "revealed when it ends")):
        table.add_row(name, value)
    for key in ("new", "base"):
        row = test["versions"][key]
        table.add_row(f"{key}: faults, timeouts, forfeits", f"{row['faults']}, {row['timeouts']}, {row['forfeits']}")
    return table
