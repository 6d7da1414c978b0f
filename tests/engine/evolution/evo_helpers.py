"""Builders for Evolution rules situations: a few lines of dict become a state to act on."""

from __future__ import annotations

from typing import Any

from engine.evolution import GAME, EvolutionState

FILLER = "Long Neck:3"


def species(*traits: str, body: int = 1, pop: int = 1, food: int = 0, fat: int = 0, upkeep: int = 0,
            avian: bool = False, face_down: tuple[str, ...] = (), sid: int | None = None) -> dict[str, Any]:
    """A species dict; an avian species gets its Flight card first unless it is listed."""
    cards = list(traits)
    if avian and not any(t.split(":")[0] == "Flight" for t in cards):
        cards.insert(0, "Flight")
    d: dict[str, Any] = {"traits": cards, "face_down": list(face_down), "body_size": body, "population": pop,
                         "food": food, "fat": fat, "upkeep": upkeep, "avian": avian}
    if sid is not None:
        d["id"] = sid
    return d


def avian(*traits: str, **kw: Any) -> dict[str, Any]:
    return species(*traits, avian=True, **kw)


def seat(*rows: dict[str, Any], hand: tuple[str, ...] | list[str] = (), bag: int = 0,
         food_card: str | None = None) -> dict[str, Any]:
    return {"species": list(rows), "hand": list(hand), "bag": bag, "food_card": food_card}


def make(*seats: dict[str, Any], phase: str = "feeding", wh: int = 0, cliff: int = 0, first: int = 0,
         turn: int | None = None, deck: list[str] | None = None, reserve: list[str] | None = None,
         discard: list[str] | None = None, options: dict[str, Any] | None = None, round: int = 1,
         **extra: Any) -> EvolutionState:
    """A state from a short description; the deck is filler cards unless given."""
    data: dict[str, Any] = {
        "options": options or {},
        "seed": 0,
        "round": round,
        "phase": phase,
        "first_player": first,
        "watering_hole": wh,
        "cliff": cliff,
        "deck": [FILLER] * 30 if deck is None else deck,
        "reserve": [] if reserve is None else reserve,
        "discard": [] if discard is None else discard,
        "seats": list(seats),
        **extra,
    }
    if turn is not None:
        data["turn"] = turn
    state = GAME.state_from_dict(data)
    state.advance()  # the forced steps of the position written: the helpers give a state to act on
    return state


def kind(state: EvolutionState) -> str | None:
    d = state.decision()
    return None if d is None else d.kind


def options(state: EvolutionState) -> list[Any]:
    d = state.decision()
    assert d is not None, "the game is over"
    return list(d.options)


def sp(state: EvolutionState, seat_no: int, index: int) -> dict[str, Any]:
    """The species dict at (seat, index) as to_dict() shows it."""
    return state.to_dict()["seats"][seat_no]["species"][index]  # type: ignore[no-any-return]


def row(state: EvolutionState, seat_no: int) -> list[dict[str, Any]]:
    return state.to_dict()["seats"][seat_no]["species"]  # type: ignore[no-any-return]


def do(state: EvolutionState, *actions: Any) -> list[Any]:
    """Apply actions in order; returns all their events."""
    events: list[Any] = []
    for action in actions:
        events += state.apply(action)
    return events


def pass_all(state: EvolutionState, limit: int = 200) -> None:
    """Play on choosing 'pass', 'no', 'done' or option 0 until the game moves past feeding."""
    for _ in range(limit):
        d = state.decision()
        if d is None or state.phase != "feeding":
            return
        for preferred in ("pass", "done", "keep", 0):
            if preferred in d.options:
                state.apply(preferred)
                break
        else:
            state.choose(0)
