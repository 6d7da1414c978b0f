"""The engine contract shared by every game (docs/architecture.md#the-engine-contract).

Standard library only: this module is imported by bots, workers and the web alike.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

JSON = Any  # a plain JSON value: dict, list, str, int, float, bool or None


class IllegalAction(ValueError):
    """An action that is not among the current decision's options."""


class InvalidOptions(ValueError):
    """Game options that fail the game's schema."""


class InvalidState(ValueError):
    """A state dict that does not describe a legal state of the game."""


def check_seed(seed: object) -> None:
    """Raise InvalidOptions unless seed is an integer (a bool is not one)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidOptions(f"seed must be an integer, got {seed!r}")


def check_seat(seat: int | None, num_players: int) -> None:
    """Raise ValueError unless seat is None (the omniscient view) or one of the game's seats."""
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players):
        raise ValueError(f"seat {seat!r}: this game has seats 0-{num_players - 1}, or None for the omniscient view")


@dataclass(frozen=True)
class Decision:
    """Who must act next, and the finite, ordered list of legal actions."""

    seat: int
    kind: str
    options: Sequence[JSON]
    prompt: str = ""

    def to_dict(self) -> dict[str, JSON]:
        return {"seat": self.seat, "kind": self.kind, "options": list(self.options), "prompt": self.prompt}


@dataclass(frozen=True)
class Outcome:
    """Final scores, ranks (1 is best; ties share a rank) and the tie-break keys used."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    termination: str = "normal"

    def to_dict(self) -> dict[str, JSON]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "tiebreaks": [list(t) for t in self.tiebreaks],
            "termination": self.termination,
        }

    @classmethod
    def from_keys(cls, keys: Sequence[tuple[int, ...]], termination: str = "normal") -> Outcome:
        """Rank seats by their keys (score first, then tie-breaks), higher is better; equal keys share a rank."""
        return cls(
            scores=tuple(k[0] for k in keys),
            ranks=_ranks(keys),
            tiebreaks=tuple(tuple(k[1:]) for k in keys),
            termination=termination,
        )

    def with_forfeits(self, forfeited: Sequence[bool]) -> Outcome:
        """The outcome of a match some seats forfeited: they rank below every other seat, and each group keeps the
        game's order among itself (termination "forfeit"). Unchanged when nobody forfeited. The one rank rule the
        match loop, the replay verifier and the results use."""
        if len(forfeited) != len(self.ranks):
            raise ValueError(f"forfeited has {len(forfeited)} entries for {len(self.ranks)} seats")
        if not any(forfeited):
            return self
        keys = [(0 if lost else 1, -rank) for rank, lost in zip(self.ranks, forfeited, strict=True)]
        return replace(self, ranks=_ranks(keys), termination="forfeit")


def _ranks(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """1 + the number of strictly better keys: equal keys share a rank."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its type, default, bounds and meaning."""

    type: str  # "int", "bool", "choice" or "json"
    default: JSON
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[JSON, ...] = ()

    def to_dict(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {"type": self.type, "default": self.default, "description": self.description}
        if self.minimum is not None:
            d["minimum"] = self.minimum
        if self.maximum is not None:
            d["maximum"] = self.maximum
        if self.choices:
            d["choices"] = list(self.choices)
        return d

    def check(self, name: str, value: JSON) -> None:
        """Raise InvalidOptions naming the option and the value when value does not fit."""
        if self.type == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(f"option {name!r} must be true or false, got {value!r}")
        elif self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(f"option {name!r} must be an integer, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise InvalidOptions(f"option {name!r} must be at least {self.minimum}, got {value!r}")
            if self.maximum is not None and value > self.maximum:
                raise InvalidOptions(f"option {name!r} must be at most {self.maximum}, got {value!r}")
        elif self.type == "choice":
            if value not in self.choices:
                allowed = ", ".join(repr(c) for c in self.choices)
                raise InvalidOptions(f"option {name!r} must be one of {allowed}, got {value!r}")
        elif self.type == "json":
            try:
                json.dumps(value)
            except (TypeError, ValueError) as exc:
                raise InvalidOptions(f"option {name!r} must be plain JSON: {exc}") from exc


class Game(ABC):
    """Immutable metadata and the factory for states of one game."""

    name: ClassVar[str]
    title: ClassVar[str]
    rules_version: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_schema: ClassVar[Mapping[str, OptionSpec]]
    # What the service shows of a game (docs/architecture.md#adding-a-third-game-in-a-day): the script beside the
    # game's module that draws its board, served by the replays app (None: the viewer's generic board), and its
    # score's unit, one and many.
    viewer_script: ClassVar[str | None] = None
    score_units: ClassVar[tuple[str, str]] = ("point", "points")

    def default_options(self) -> dict[str, JSON]:
        return {k: spec.default for k, spec in self.options_schema.items()}

    def validate_options(self, options: Mapping[str, JSON] | None) -> dict[str, JSON]:
        """Return the full options (defaults filled in); raise InvalidOptions on unknown keys or bad values."""
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise InvalidOptions(f"options must be an object, got {type(options).__name__}")
        unknown = sorted(set(options) - set(self.options_schema))
        if unknown:
            known = ", ".join(sorted(self.options_schema))
            raise InvalidOptions(f"unknown option(s) {', '.join(map(repr, unknown))} for {self.name}; known: {known}")
        full = self.default_options()
        for key in sorted(options):
            self.options_schema[key].check(key, options[key])
            full[key] = options[key]
        self.check_options(full)
        return full

    def check_options(self, options: dict[str, JSON]) -> None:  # noqa: B027 - an optional hook, not abstract
        """Cross-field checks; games override this. Raises InvalidOptions."""

    def check_players(self, num_players: int) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise InvalidOptions(f"players must be an integer, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise InvalidOptions(
                f"{self.name} takes {self.min_players}-{self.max_players} players, got {num_players}"
            )

    def at_rules_version(self, version: str) -> Game:
        """This game under rules `version`, so that replays recorded before a rules change still replay byte for
        byte. A game keeps an older version only while it has stored replays; raises InvalidOptions otherwise."""
        if version != self.rules_version:
            raise InvalidOptions(f"{self.name} has no rules version {version!r}; this engine has "
                                 f"{self.rules_version!r}")
        return self

    def balance_labels(self, state: State) -> dict[str, list[str]]:
        """Per-seat labels of a fresh game that `python -m engine simulate` counts wins by (balance facts such as
        Marine's animal per seat); none by default."""
        return {}

    def view_scores(self, view: Mapping[str, JSON]) -> list[int]:
        """Each seat's score as `view` (any seat's, the public or the omniscient one) shows it, and no more: the
        viewer's score chart. By default the view's own "scores" list; a game whose views lack one overrides this.
        Raises NotImplementedError when the view holds no scores."""
        scores = view.get("scores")
        if not isinstance(scores, list):
            raise NotImplementedError(f"{self.name} views hold no \"scores\" list: override Game.view_scores")
        return [int(score) for score in scores]

    def metadata(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "title": self.title,
            "rules_version": self.rules_version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": {k: s.to_dict() for k, s in self.options_schema.items()},
        }

    def seat_events(self, seat: int, events: Sequence[JSON]) -> list[JSON]:
        """The events an apply() or advance() returned, as `seat` saw them: a seat's history is the concatenation
        of these over the game so far. By default every event is public (the games' events name no hidden card:
        docs/rules/*.md, "What is hidden"), so this is a copy of them. Raises ValueError for a seat that is not
        an index."""
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise ValueError(f"seat {seat!r}: a seat is an index 0, 1, ...")
        copied: list[JSON] = json.loads(json.dumps(list(events)))  # a copy the caller may keep: it shares nothing
        return copied

    def determinize(self, seat: int, view: Mapping[str, JSON], history: Sequence[JSON], seed: int,
                    context: Mapping[str, JSON] | None = None) -> State:
        """A full state consistent with everything `seat` has seen (its `view` at one of its decisions, its
        `history` of seat_events, and the decision's `context` from State.seat_context), with everything it has
        not seen dealt at random from what remains, from `seed` alone. Same inputs, same state. It never reads a
        real state, so it cannot use what the seat has not seen (docs/bots.md, "The engine API"). Raises
        ValueError naming what does not fit."""
        raise NotImplementedError(f"{self.name} cannot determinize")

    @abstractmethod
    def new_state(self, num_players: int, seed: int, options: Mapping[str, JSON] | None = None) -> State:
        """A fresh game; raises InvalidOptions for a bad player count or options."""

    @abstractmethod
    def state_from_dict(self, data: Mapping[str, JSON]) -> State:
        """The state a dict describes (to_dict() output, or a hand-written position), exactly: forced steps stay
        pending (State.settled, State.advance). Raises InvalidState when it is malformed."""


class State(ABC):
    """A mutable game position. All chance comes from the seed, in a fixed order.

    A state is settled when it waits for a real decision (two options or more, or one the game always offers) or
    the game is over. Between an action and the next decision a game may have forced steps to take (an attack with
    one target, an extinction, the next round's deal); a state stopped before them is not settled: `decision()` is
    None, `is_over()` is False, and `advance()` takes them. `new_state` and `apply` (by default) return settled
    states; `Game.state_from_dict` gives exactly the position written, settled or not."""

    game: Game  # set on the class; a state of an older rules version sets its own (Game.at_rules_version)

    @abstractmethod
    def decision(self) -> Decision | None:
        """The pending decision; None when the game is over, or while forced steps are pending (not `settled`)."""

    @abstractmethod
    def apply(self, action: JSON, *, advance: bool = True) -> list[JSON]:
        """Play one of decision().options; return the public events it caused. With advance=False stop right
        after the action's answer, before any forced step (the events of the answer only; see `advance`).
        Raises IllegalAction, also while forced steps are pending."""

    def advance(self) -> list[JSON]:
        """Take the pending forced steps until a real decision or the end; return their public events (none on a
        settled state). A game without forced steps is always settled."""
        return []

    @property
    def settled(self) -> bool:
        """True when a real decision is pending or the game is over; False while forced steps are pending."""
        return True

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, JSON]:
        """What seat may see (None: everything, for finished games and admins). Raises ValueError for a seat the
        game does not have (engine.core.check_seat)."""

    def seat_patch(self, seat: int, sent: Any, max_ops: int) -> tuple[dict[str, JSON], list[dict[str, JSON]] | None,
                                                                    Any]:
        """seat's view, and the patch (protocol 2) that turns the view it was sent last into it: (view, patch, sent).
        `sent` is what the previous call for this seat returned (None: nothing sent yet, and then no patch); the
        patch is None too where it would have more than max_ops operations. The view may be an object kept in
        `sent`, changed by the next call: encode it (and the patch, whose values are its parts) before that call, and
        never change it.

        By default the whole view is built and compared with the last (protocol.view_patch); a game that can tell
        from its own state which parts changed overrides this (engine/evolution/seat_views.py,
        engine/marine/seat_views.py).
        tests/engine/test_protocol.py checks, at every decision of random games, that the view is state.view(seat)
        and that the patch turns the last view into it, key order included."""
        from engine.protocol import patch_since  # the protocol module imports this one

        view = self.view(seat)
        return view, patch_since(sent, view, max_ops), view

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The final result, or None while the game runs."""

    @abstractmethod
    def to_dict(self) -> dict[str, JSON]:
        """Plain JSON holding everything, hidden information included."""

    def choose(self, index: int) -> list[JSON]:
        """Apply the option at index of the pending decision. Raises IllegalAction when out of range."""
        decision = self.decision()
        if decision is None:
            raise IllegalAction(f"choice {index!r}: " + ("the game is over" if self.settled else
                                                        "forced steps are pending; advance() takes them first"))
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(decision.options):
            raise IllegalAction(
                f"choice {index!r} is out of range for {decision.kind} of seat {decision.seat}: "
                f"{len(decision.options)} option(s)"
            )
        return self.apply(decision.options[index])

    def clone(self) -> State:
        return self.game.state_from_dict(self.to_dict())

    def scores(self) -> list[int]:
        """Each seat's score as the game would count it now (the final scores once the game is over)."""
        raise NotImplementedError(f"{self.game.name} states cannot score")

    def seat_context(self, seat: int) -> dict[str, JSON]:
        """What Game.determinize needs beside `seat`'s view to rebuild the pending decision exactly: the options
        of the match and the steps still to run, with nothing the seat may not see (a test perturbs what it
        cannot see and checks the context stays the same). Raises ValueError for a seat the game does not have."""
        raise NotImplementedError(f"{self.game.name} states have no seat context")

    def options_at(self, step: JSON) -> list[JSON]:
        """The legal actions of a decision in this position, whether or not it is the pending one: `step` is the
        decision step as JSON, [name, seat, *args] (the games' rules pages list each decision kind's step). The
        state is not changed. Raises InvalidState naming a step the game does not have or that does not fit."""
        raise NotImplementedError(f"{self.game.name} states cannot list the options of other decisions")

    def resample(self, seed: int) -> State:
        """A copy of this state with everything no seat has seen dealt again from a new generator seeded by `seed`,
        and the state's own later chance reseeded from `seed`; this state is left as it is.

        What any seat has seen stays: hands, boards, discards, face-up and revealed cards, and each seat's own
        face-down cards, so `view(seat)` is the same for every seat (and `decision()` too) while the future may
        differ. Only what the games' rules pages list as hidden from every seat changes (Evolution: the order and
        the split of the deck and the reserve; Marine: the draw pile's order, the Asteroid still among its bottom
        five, and the Wanderlust tiles below the stacks' tops), and the `seed`. Same state and same seed give the
        same state, byte for byte: a branch of a game played on from a position with a future of its own. The
        new deal starts from a fixed order, so it tells nothing of the order it replaces.
        Raises InvalidOptions for a seed that is not an integer."""
        raise NotImplementedError(f"{self.game.name} states cannot be resampled")

    def is_over(self) -> bool:
        """The game has ended (a state with pending forced steps has not)."""
        return self.decision() is None and self.settled

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
