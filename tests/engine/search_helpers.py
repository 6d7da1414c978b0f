"""Games to determinize in the search tests: the golden playthroughs, the stored replays, and seeded random games,
each walked decision by decision with every seat's history (the concatenation of its seat_events)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from golden_files import GOLDEN_DIR

from engine.core import Game, State
from engine.registry import load_game

REPLAY_DIR = Path(__file__).resolve().parent.parent / "replays" / "data"


@dataclass
class Moment:
    """One decision of a game: the real state (not to be changed) and the deciding seat's history so far."""

    game: Game
    state: State
    seat: int
    history: list[Any]


def stored_games() -> list[tuple[str, Game, State, list[int]]]:
    """(name, game, the initial state, the choices) of every golden playthrough and stored replay."""
    games = []
    for path in sorted(GOLDEN_DIR.glob("*.json")):
        data = json.loads(path.read_text())
        game = load_game(data["game"], data["rules_version"])
        state = game.new_state(data["players"], data["seed"], data["options"])
        games.append((path.name, game, state, [step["choice"] for step in data["steps"]]))
    for path in sorted(REPLAY_DIR.glob("*.json")):
        header = json.loads(path.read_text())["header"]
        game = load_game(header["game"], header["rules_version"])
        state = game.new_state(header["players"], header["seed"], header["options"])
        choices = [a["choice"] for a in json.loads(path.read_text())["actions"]]
        games.append((path.name, game, state, choices))
    return games


def moments(game: Game, state: State, choices: list[int]) -> Iterator[Moment]:
    """Every decision of the game the choices play (the state is played on in place after each one)."""
    n = state.view(None)["num_players"]
    histories: list[list[Any]] = [[] for _ in range(n)]
    for choice in choices:
        decision = state.decision()
        if decision is None:
            return
        yield Moment(game, state, decision.seat, histories[decision.seat])
        events = state.choose(choice)
        for seat in range(n):
            histories[seat] += game.seat_events(seat, events)


def random_choices(game: Game, players: int, seed: int, options: dict[str, Any] | None = None) -> list[int]:
    """The choices of a seeded random game, to the end."""
    state = game.new_state(players, seed, options)
    rng = random.Random(seed)
    choices = []
    while (decision := state.decision()) is not None:
        choices.append(rng.randrange(len(decision.options)))
        state.choose(choices[-1])
    return choices
