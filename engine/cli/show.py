"""`python -m engine show FILE`: validate a saved state and print its view and pending decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.cli.common import CliError, format_decision, format_outcome, load_renderer
from engine.core import Game, State
from engine.registry import load_game


def read_state_file(path: str, game_name: str | None) -> tuple[Game, State]:
    """Read `{"game": ..., "state": {...}}` or a raw state dict (with game_name); raises CliError or InvalidState."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"{path} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    if not isinstance(data, dict):
        raise CliError(f"{path} must hold a JSON object, got {type(data).__name__}")
    name, state_dict = _split(data, game_name, path)
    game = load_game(name)
    return game, game.state_from_dict(state_dict)


def _split(data: dict[str, Any], game_name: str | None, path: str) -> tuple[str, Any]:
    if "state" in data and "game" in data:
        if not isinstance(data["game"], str):
            raise CliError(f"{path}: 'game' must be a string, got {data['game']!r}")
        if game_name is not None and game_name != data["game"]:
            raise CliError(f"{path} holds a {data['game']!r} state, but --game says {game_name!r}")
        return data["game"], data["state"]
    if game_name is None:
        raise CliError(f"{path} is a raw state dict: say which game it is with --game")
    return game_name, data


def seat_count(state: State) -> int | None:
    """The number of seats, from the omniscient view's "num_players", "players" or "seats", when it has one."""
    view = state.view(None)
    for key in ("num_players", "players", "seats"):
        value = view.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, list):
            return len(value)
    return None


def show_text(game: Game, state: State, seat: int | None) -> str:
    """The rendering of view(seat) (omniscient when seat is None), then the decision or the outcome."""
    seats = seat_count(state)
    if seat is not None and not (0 <= seat and (seats is None or seat < seats)):
        raise CliError(f"--seat must be a seat of this state (0-{(seats or 1) - 1}), got {seat}")
    try:
        view = state.view(seat)
    except (IndexError, KeyError, ValueError) as exc:
        raise CliError(f"--seat {seat} is not a seat of this state ({exc})") from exc
    rendered = load_renderer(game)(view)
    parts = [rendered]
    decision = state.decision()
    if decision is not None:
        visible = seat is None or seat == decision.seat
        listed = "[0] " in rendered  # the game's own rendering may already list the numbered options
        parts.append(format_decision(decision) if visible and not listed
                     else f"seat {decision.seat} to act: {decision.kind}")
    elif not state.settled:  # the file holds a position before forced steps (an exact load takes none)
        parts.append("forced steps are pending: no decision until they are taken (State.advance)")
    else:
        outcome = state.outcome()
        if outcome is not None:
            parts.append(format_outcome(outcome, []))
    return "\n\n".join(parts)
