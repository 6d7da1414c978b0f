"""Golden playthroughs: one file per game and player count that pins every decision, view and event.

`python tests/engine/golden_files.py` is the only way to (re)write them (`--check` replays them instead; `--game`
limits either to one game). Test support, so it lives with the tests, not in the engine package. Each file records
the game, rules_version, options and seed, then every step: the decision (seat, kind, options, prompt), the acting
seat's view before it, the choice (a seeded `random` bot), the events and the omniscient view after it. The first
and last entries hold every seat's view. tests/engine/test_golden_playthroughs.py replays each file and requires
an exact match.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.bots.random_bot import RandomBot
from engine.core import Game, State
from engine.registry import game_names, load_game

FORMAT = 1
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
GOLDEN_SEED = 7
MAX_STEPS = 100_000
# Options per game that keep the files small (short games); the default options otherwise.
GOLDEN_OPTIONS: dict[str, dict[str, Any]] = {"evolution": {"deck": "short"},
                                             "marine": {"length": "short", "max_rounds": 2}}


def golden_path(game_name: str, players: int, directory: Path = GOLDEN_DIR) -> Path:
    return directory / f"{game_name}_{players}p.json"


def expected_paths(directory: Path = GOLDEN_DIR) -> Iterator[tuple[str, int, Path]]:
    """Every (game, players, path) that must exist: each registered game, each player count."""
    for name in game_names():
        game = load_game(name)
        for players in range(game.min_players, game.max_players + 1):
            yield name, players, golden_path(name, players, directory)


def _plain(value: Any) -> Any:
    """The JSON form of value, as a file would hold it (tuples become lists)."""
    return json.loads(json.dumps(value))


def all_views(state: State, players: int) -> dict[str, Any]:
    return _plain({"seats": [state.view(seat) for seat in range(players)], "omniscient": state.view(None)})  # type: ignore[no-any-return]


def record_playthrough(game: Game, players: int, seed: int = GOLDEN_SEED,
                       options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play one game with a seeded random bot choosing for every seat and record every step."""
    full_options = game.validate_options(options if options is not None else GOLDEN_OPTIONS.get(game.name, {}))
    state = game.new_state(players, seed, full_options)
    bot = RandomBot(seed)
    data: dict[str, Any] = {"format": FORMAT, "game": game.name, "rules_version": game.rules_version,
                            "players": players, "options": full_options, "seed": seed, "bot": "random",
                            "bot_seed": seed, "initial": all_views(state, players)}
    steps: list[dict[str, Any]] = []
    while (decision := state.decision()) is not None:
        if len(steps) >= MAX_STEPS:
            raise RuntimeError(f"{game.name} {players}p seed {seed}: no end after {MAX_STEPS} steps")
        view = _plain(state.view(decision.seat))
        choice = bot.act(view, decision)
        recorded = _plain(decision.to_dict())
        events = _plain(state.apply(decision.options[choice]))
        steps.append({"decision": recorded, "view": view, "choice": choice, "events": events,
                      "omniscient": _plain(state.view(None))})
    outcome = state.outcome()
    assert outcome is not None, "a finished game must have an outcome"
    data.update(final=all_views(state, players), outcome=outcome.to_dict(), steps=steps)
    return _plain(data)  # type: ignore[no-any-return]


def dumps_playthrough(data: dict[str, Any]) -> str:
    """Compact JSON with one step per line, so a diff points at the step that changed."""
    def canon(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    head = ",".join(f"{canon(k)}:{canon(v)}" for k, v in sorted(data.items()) if k != "steps")
    steps = ",\n".join(canon(step) for step in data["steps"])
    return "{" + head + ',"steps":[\n' + steps + "\n]}\n"


def write_golden(names: list[str] | None = None, directory: Path = GOLDEN_DIR) -> list[Path]:
    """Regenerate the files of the named games (all registered games by default); return the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, players, path in expected_paths(directory):
        if names is None or name in names:
            path.write_text(dumps_playthrough(record_playthrough(load_game(name), players)), encoding="utf-8")
            written.append(path)
    return written


def check_playthrough(data: dict[str, Any]) -> list[str]:
    """Replay a recorded playthrough; return the mismatches, first ones first (empty when it matches exactly)."""
    game = load_game(data["game"])
    if data["rules_version"] != game.rules_version:
        return [f"rules_version {data['rules_version']!r} != engine {game.rules_version!r}: "
                "regenerate with `python tests/engine/golden_files.py`"]
    players = data["players"]
    state = game.new_state(players, data["seed"], data["options"])
    problems = _compare("initial views", data["initial"], all_views(state, players))
    for number, step in enumerate(data["steps"]):
        problems += _check_step(state, number, step)
        if problems:
            return problems
    if state.decision() is not None:
        return [f"the game goes on after the recorded {len(data['steps'])} steps"]
    problems += _compare("final views", data["final"], all_views(state, players))
    outcome = state.outcome()
    return problems + _compare("outcome", data["outcome"], outcome.to_dict() if outcome else None)


def _check_step(state: State, number: int, step: dict[str, Any]) -> list[str]:
    decision = state.decision()
    if decision is None:
        return [f"step {number}: the game is over, but the file goes on"]
    problems = _compare(f"step {number} decision", step["decision"], decision.to_dict())
    problems += _compare(f"step {number} view of seat {decision.seat}", step["view"], state.view(decision.seat))
    if problems:
        return problems
    events = state.choose(step["choice"])
    problems += _compare(f"step {number} events", step["events"], events)
    return problems + _compare(f"step {number} omniscient view", step["omniscient"], state.view(None))


def _compare(what: str, expected: Any, actual: Any) -> list[str]:
    actual = _plain(actual)
    if expected == actual and json.dumps(expected, sort_keys=True) == json.dumps(actual, sort_keys=True):
        return []
    return [f"{what} differs: expected {_short(expected)}, got {_short(actual)}"]


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def check_golden(names: list[str] | None = None, directory: Path = GOLDEN_DIR) -> dict[str, list[str]]:
    """Problems per file, for every expected file of the named games (a missing file is a problem)."""
    report: dict[str, list[str]] = {}
    for name, _players, path in expected_paths(directory):
        if names is None or name in names:
            if not path.exists():
                report[path.name] = ["missing: run `python tests/engine/golden_files.py`"]
            else:
                report[path.name] = check_playthrough(json.loads(path.read_text(encoding="utf-8")))
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/engine/golden_files.py", description=__doc__)
    parser.add_argument("--game", action="append", choices=game_names(),
                        help="only this game (repeatable); default: every game")
    parser.add_argument("--check", action="store_true", help="replay the files instead of writing them")
    args = parser.parse_args(argv)
    if args.check:
        report = check_golden(args.game)
        for file_name, problems in sorted(report.items()):
            print(f"{file_name}: {'ok' if not problems else problems[0]}")
        return 0 if not any(report.values()) else 1
    for path in write_golden(args.game):
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
