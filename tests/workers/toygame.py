"""A tiny game for fast service tests: players take 1-3 stones from a seeded pile; whoever takes more scores more.

It follows the engine contract (ARCHITECTURE §3) with hidden information (each seat's secret bonus), so replay,
frame and runner tests do not depend on the speed of the real games. Registered under the name "tinynim".
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Decision, Game, IllegalAction, InvalidState, OptionSpec, Outcome, State


class TinyNim(Game):
    name = "tinynim"
    title = "Tiny Nim"
    rules_version = "1"
    min_players = 2
    max_players = 4
    options_schema = {
        "pile": OptionSpec("int", 12, "stones at the start (plus a seeded extra 0-3)", minimum=3, maximum=60),
        "max_take": OptionSpec("int", 3, "most stones taken per turn", minimum=1, maximum=5),
    }

    def new_state(self, num_players: int, seed: int, options: Mapping[str, Any] | None = None) -> TinyNimState:
        self.check_players(num_players)
        opts = self.validate_options(options)
        rng = random.Random(seed)
        return TinyNimState({
            "players": num_players, "pile": opts["pile"] + rng.randrange(4), "max_take": opts["max_take"],
            "turn": 0, "taken": [0] * num_players, "bonus": [rng.randrange(3) for _ in range(num_players)],
        })

    def state_from_dict(self, data: Mapping[str, Any]) -> TinyNimState:
        if not isinstance(data, Mapping) or "pile" not in data:
            raise InvalidState("not a tinynim state")
        return TinyNimState(dict(data))


class TinyNimState(State):
    game = TinyNim()

    def __init__(self, data: dict[str, Any]) -> None:
        self.d = {k: (list(v) if isinstance(v, list) else v) for k, v in data.items()}

    def decision(self) -> Decision | None:
        if self.d["pile"] <= 0:
            return None
        most = min(self.d["max_take"], self.d["pile"])
        return Decision(seat=self.d["turn"], kind="take", options=list(range(1, most + 1)), prompt="take stones")

    def apply(self, action: Any) -> list[Any]:
        decision = self.decision()
        if decision is None or action not in decision.options:
            raise IllegalAction(f"take {action!r}: not allowed with {self.d['pile']} stones left")
        seat = self.d["turn"]
        self.d["pile"] -= action
        self.d["taken"][seat] += action
        self.d["turn"] = (seat + 1) % self.d["players"]
        return [{"seat": seat, "took": action}]

    def view(self, seat: int | None) -> dict[str, Any]:
        view = {"pile": self.d["pile"], "turn": self.d["turn"], "taken": list(self.d["taken"])}
        view["bonus"] = list(self.d["bonus"]) if seat is None else {str(seat): self.d["bonus"][seat]}
        return view

    def outcome(self) -> Outcome | None:
        if self.d["pile"] > 0:
            return None
        return Outcome.from_keys([(t + b,) for t, b in zip(self.d["taken"], self.d["bonus"], strict=True)])

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.d.items()}


GAME = TinyNimState.game
