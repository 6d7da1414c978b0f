"""A tiny game for fast service tests: players take 1-3 stones from a seeded pile; whoever takes more scores more.

It keeps the engine contract (docs/architecture.md#the-engine-contract) and passes engine/testing.py, with hidden
information (each seat's secret bonus), so replay, frame and runner tests do not depend on the speed of the real
games. Registered under the name "tinynim"; it is the worked example of
docs/architecture.md#adding-a-third-game-in-a-day. It has no board renderer of its own (the viewer's generic board)
and no determinization (optional in engine/testing.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.core import Decision, Game, IllegalAction, InvalidState, OptionSpec, Outcome, State, check_seat, check_seed


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
        check_seed(seed)
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

    def view_scores(self, view: Mapping[str, Any]) -> list[int]:
        """Stones taken, plus each bonus the view shows (a seat sees only its own)."""
        bonus = view["bonus"]
        known = dict(enumerate(bonus)) if isinstance(bonus, list) else {int(s): b for s, b in bonus.items()}
        return [taken + known.get(seat, 0) for seat, taken in enumerate(view["taken"])]


class TinyNimState(State):
    game = TinyNim()

    def __init__(self, data: dict[str, Any]) -> None:
        self.d = {k: (list(v) if isinstance(v, list) else v) for k, v in data.items()}

    def decision(self) -> Decision | None:
        if self.d["pile"] <= 0:
            return None
        most = min(self.d["max_take"], self.d["pile"])
        return Decision(seat=self.d["turn"], kind="take", options=list(range(1, most + 1)), prompt="take stones")

    def apply(self, action: Any, *, advance: bool = True) -> list[Any]:
        # No forced steps in this game, so advance changes nothing. Only an int counts stones (True == 1.0 == 1).
        decision = self.decision()
        if decision is None or type(action) is not int or action not in decision.options:
            raise IllegalAction(f"take {action!r}: not allowed with {self.d['pile']} stones left")
        seat = self.d["turn"]
        self.d["pile"] -= action
        self.d["taken"][seat] += action
        self.d["turn"] = (seat + 1) % self.d["players"]
        return [{"seat": seat, "took": action}]

    def view(self, seat: int | None) -> dict[str, Any]:
        check_seat(seat, self.d["players"])
        view = {"pile": self.d["pile"], "turn": self.d["turn"], "taken": list(self.d["taken"])}
        view["bonus"] = list(self.d["bonus"]) if seat is None else {str(seat): self.d["bonus"][seat]}
        return view

    def scores(self) -> list[int]:
        return [t + b for t, b in zip(self.d["taken"], self.d["bonus"], strict=True)]

    def outcome(self) -> Outcome | None:
        if self.d["pile"] > 0:
            return None
        return Outcome.from_keys([(score,) for score in self.scores()])

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, list) else v) for k, v in self.d.items()}


def perturb_hidden(state_dict: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """A copy of state_dict with every other seat's bonus re-drawn: what `seat` cannot see (engine/testing.py)."""
    data = dict(state_dict, bonus=list(state_dict["bonus"]))
    for other in range(data["players"]):
        if other != seat:
            data["bonus"][other] = rng.randrange(3)
    return data


GAME = TinyNimState.game
