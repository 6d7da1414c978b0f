"""Builders for Marine rules situations: a few lines of dict become a state to act on."""

from __future__ import annotations

from typing import Any

from engine.marine import GAME, MarineState
from engine.marine.data import CARDS

# Cards without an event, to fill slots and the draw pile where the cards do not matter.
PLAIN = [name for name, _effects, event in CARDS if not event]

Tile = tuple[int, int, str, list[int]]


def tiles(*specs: Tile) -> list[dict[str, Any]]:
    return [{"hex": [q, r], "terrain": terrain, "species": list(species)} for q, r, terrain, species in specs]


def make(tile_specs: list[Tile], *, animals: tuple[str, ...] = ("Reptiles", "Cephalopods"),
         elements: list[list[Any]] | None = None, markers: list[str] | None = None,
         slots: list[str | None] | None = None, deck: list[str] | None = None, discard: list[str] | None = None,
         stack: list[list[Any]] | None = None, options: dict[str, Any] | None = None, **extra: Any) -> MarineState:
    """A state from a short description. Slots and the draw pile hold plain cards unless given; the stack is the
    first seat's placement turn unless given (an action step on top of it plays that action first)."""
    used = set((slots or []) + (deck or []) + (discard or []))
    spare = [c for c in PLAIN if c not in used]
    data: dict[str, Any] = {
        "options": options or {},
        "seed": 0,
        "animals": list(animals),
        "tiles": tiles(*tile_specs),
        "elements": elements or [],
        "markers": markers or ["Land", "Land", "Kelp Forest", "Kelp Forest", "Coral Reef"],
        "slots": slots if slots is not None else spare[:5],
        "deck": deck if deck is not None else spare[5:12],
        "discard": discard or [],
        "tile_stacks": [["Land", "Seamount"], ["Kelp Forest"], ["Open Ocean"]],
        "first_player": 0,
        **extra,
    }
    if stack is not None:
        data["stack"] = [["placement", 0, 0], *stack] if stack and stack[0][0] != "placement" else stack
    state = GAME.state_from_dict(data)
    state.advance()  # the forced steps of the position written: the helpers give a state to act on
    return state


def vp(state: MarineState, part: str = "evolution") -> list[int]:
    return [state.score_parts(s)[part] for s in range(state.n)]


def kind(state: MarineState) -> str | None:
    d = state.decision()
    return None if d is None else d.kind


def options(state: MarineState) -> list[Any]:
    d = state.decision()
    assert d is not None
    return list(d.options)


def species_at(state: MarineState, q: int, r: int) -> list[int]:
    return list(state.species[(q, r)])
