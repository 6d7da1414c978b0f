"""Helpers shared by the CLI commands: errors, options, bot line-ups, seeds and text rendering."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from engine.bots import bot_names, is_bot_name
from engine.core import Decision, Game, Outcome

Renderer = Callable[[dict[str, Any]], str]


class CliError(Exception):
    """A bad command-line input: printed as one line on stderr, exit code 2."""


def canonical_json(value: Any) -> str:
    """The one JSON spelling used for digests and golden comparisons: sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def parse_bot_list(text: str) -> list[str]:
    """`random,greedy` -> ["random", "greedy"]; raises CliError naming an unknown bot."""
    names = [part.strip() for part in text.split(",")]
    if not names or any(not n for n in names):
        raise CliError(f"--bots must be a comma-separated list of bot names, got {text!r}")
    for name in names:
        if not is_bot_name(name):
            raise CliError(f"unknown bot {name!r}; known bots: {', '.join(bot_names())}, greedy_epsNN")
    return names


def parse_game_options(game: Game, pairs: Sequence[str], options_json: str | None) -> dict[str, Any]:
    """Merge `--options JSON` with `--option key=value` pairs (pairs win), then validate against the schema.

    A value is read as JSON when it parses (`3`, `true`, `"x"`), else as a plain string. Raises CliError or
    InvalidOptions with a message naming the bad input.
    """
    options: dict[str, Any] = {}
    if options_json is not None:
        try:
            loaded = json.loads(options_json)
        except json.JSONDecodeError as exc:
            raise CliError(f"--options is not valid JSON ({exc.msg}): {options_json!r}") from exc
        if not isinstance(loaded, dict):
            raise CliError(f"--options must be a JSON object, got {options_json!r}")
        options.update(loaded)
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise CliError(f"--option must look like key=value, got {pair!r}")
        options[key.strip()] = _json_or_string(raw.strip())
    return game.validate_options(options)


def _json_or_string(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the built-in bot in a seat: fixed by the game seed and the seat, so runs repeat exactly."""
    return game_seed * 1009 + seat + 1


def load_renderer(game: Game) -> Renderer:
    """`engine/<game>/render.py: render(view) -> str` when the game has one, else pretty JSON."""
    module_name = f"engine.{game.name}.render"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name not in (module_name, f"engine.{game.name}"):
            raise
        return pretty_json
    render = getattr(module, "render", None)
    return render if callable(render) else pretty_json


def pretty_json(view: dict[str, Any]) -> str:
    return json.dumps(view, indent=2, sort_keys=True)


def describe(value: Any) -> str:
    """A short one-line text for an option or an event: `new_species: seat=1, species=2` for a typed event."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return str(value["text"])
        kind = next((k for k in ("event", "type") if isinstance(value.get(k), str)), None)
        if kind is not None:
            rest = ", ".join(f"{k}={json.dumps(v)}" for k, v in value.items() if k != kind)
            return f"{value[kind]}: {rest}" if rest else str(value[kind])
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def format_decision(decision: Decision, *, base: int = 0) -> str:
    """The prompt and the numbered options of a decision."""
    head = f"seat {decision.seat} to act: {decision.kind}"
    if decision.prompt:
        head += f" ({decision.prompt})"
    lines = [head]
    lines += [f"  [{i + base}] {describe(option)}" for i, option in enumerate(decision.options)]
    return "\n".join(lines)


def format_outcome(outcome: Outcome, seat_labels: Sequence[str]) -> str:
    """A small table: seat, label, score, rank, tie-breaks."""
    lines = [f"game over ({outcome.termination})", "seat  player          score  rank  tie-breaks"]
    for seat, (score, rank) in enumerate(zip(outcome.scores, outcome.ranks, strict=True)):
        label = seat_labels[seat] if seat < len(seat_labels) else ""
        breaks = ",".join(str(t) for t in outcome.tiebreaks[seat])
        lines.append(f"{seat:>4}  {label:<14}  {score:>5}  {rank:>4}  {breaks}")
    return "\n".join(lines)
