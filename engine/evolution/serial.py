"""The state as plain JSON, both ways. from_dict validates, so tests and tools can write any situation by hand.

Cards are spelled "Name:food". Lists of cards in "deck" and "reserve" start with the top card.
Optional keys (with their defaults) keep hand-written states short; "stack" may be left out, and is then derived
from "phase" and "turn" (the seat to act next in that phase, by default the first player).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import JSON, InvalidOptions, InvalidState
from engine.evolution.cards import CARD_BIT, CARD_STR, EVENT_BITS, FLIGHT, KIND, parse_card
from engine.evolution.species import MAX_POPULATION, Species
from engine.evolution.state import EvolutionState
from engine.evolution.step_registry import (
    STEPS,
    AskFood,
    AskPlay,
    FeedTurn,
    Leafy,
    RevealFood,
    RevealTraits,
    SetPhase,
    StartFeeding,
)
from engine.steps import Task, check_keys, get_key

PHASES = ("food_card", "play", "before_reveal", "feeding", "over")
# The keys a state dict may hold (docs/rules/evolution.md lists each, required or with its default; a test checks).
STATE_KEYS = ("game", "options", "seed", "num_players", "round", "phase", "first_player", "last_round",
              "watering_hole", "cliff", "deck", "reserve", "reserve_used", "discard", "shuffles", "seats",
              "next_species_id", "passes", "acted", "negated", "stack", "turn")
SEAT_KEYS = ("hand", "bag", "food_card", "species")
SPECIES_KEYS = ("id", "traits", "face_down", "body_size", "population", "food", "fat", "upkeep", "avian")
SOURCE_NAMES = ("watering_hole", "cliff", "bank", "meat")


def state_to_dict(st: EvolutionState) -> dict[str, JSON]:
    return {
        "game": "evolution",
        "options": dict(st.options),
        "seed": st.seed,
        "num_players": st.n,
        "round": st.round,
        "phase": st.phase,
        "first_player": st.first,
        "last_round": st.last_round,
        "watering_hole": st.wh,
        "cliff": st.cliff,
        "deck": [CARD_STR[c] for c in reversed(st.deck)],
        "reserve": [CARD_STR[c] for c in reversed(st.reserve)],
        "reserve_used": st.reserve_used,
        "discard": [CARD_STR[c] for c in st.discard],
        "shuffles": st.shuffles,
        "seats": [seat_to_dict(st, s) for s in range(st.n)],
        "next_species_id": st.next_sid,
        "passes": st.passes,
        "acted": st.acted,
        "negated": list(st.negated),
        "stack": [STEPS.to_json(t) for t in st.stack],
    }


def seat_to_dict(st: EvolutionState, seat: int) -> dict[str, JSON]:
    food_card = st.food_cards[seat]
    return {
        "hand": [CARD_STR[c] for c in st.hands[seat]],
        "bag": st.bags[seat],
        "food_card": None if food_card is None else CARD_STR[food_card],
        "species": [species_to_dict(sp) for sp in st.rows[seat]],
    }


def species_to_dict(sp: Species) -> dict[str, JSON]:
    return {
        "id": sp.sid,
        "traits": [CARD_STR[c] for c in sp.cards],
        "face_down": [CARD_STR[c] for c in sp.hidden],
        "body_size": sp.body,
        "population": sp.pop,
        "food": sp.food,
        "fat": sp.fat,
        "upkeep": sp.upkeep,
        "avian": sp.avian,
    }


# -- from a dict ------------------------------------------------------------------------------------------------

def _int(d: Mapping[str, Any], key: str, where: str, lo: int, hi: int, default: Any = ...) -> int:
    value = get_key(d, key, where, int, default)
    if not lo <= value <= hi:
        raise InvalidState(f"{where}.{key} must be in {lo}..{hi}, got {value!r}")
    return int(value)


def _cards(d: Mapping[str, Any], key: str, where: str, default: Any = ..., board: bool = False) -> list[int]:
    """Cards under key; a Flight card may only be a trait on a board (ruling 3: the others stay beside the deck)."""
    items = get_key(d, key, where, list, default)
    try:
        cards = [parse_card(x) for x in items]
    except ValueError as exc:
        raise InvalidState(f"{where}.{key}: {exc}") from None
    if not board and any(CARD_BIT[c] == FLIGHT for c in cards):
        raise InvalidState(f"{where}.{key}: Flight cards stay beside the deck and come only with avian species")
    return cards


def state_from_dict(game: Any, data: Mapping[str, Any]) -> EvolutionState:
    if not isinstance(data, Mapping):
        raise InvalidState(f"a state must be an object, got {type(data).__name__}")
    check_keys(data, "state", STATE_KEYS)
    if get_key(data, "game", "state", str, "evolution") != "evolution":
        raise InvalidState(f"state.game must be 'evolution', got {data['game']!r}")
    try:
        options = game.validate_options(get_key(data, "options", "state", dict, {}))
    except InvalidOptions as exc:
        raise InvalidState(f"state.options: {exc}") from None
    seats = get_key(data, "seats", "state", list)
    n = len(seats)
    if not game.min_players <= n <= game.max_players:
        raise InvalidState(f"state.seats must list {game.min_players}-{game.max_players} seats, got {n}")
    if get_key(data, "num_players", "state", int, n) != n:
        raise InvalidState(f"state.num_players is {data['num_players']!r} but there are {n} seats")
    st = EvolutionState(options, get_key(data, "seed", "state", int), n)
    st.round = _int(data, "round", "state", 1, 10_000, 1)
    st.phase = get_key(data, "phase", "state", str)
    if st.phase not in PHASES:
        raise InvalidState(f"state.phase must be one of {', '.join(PHASES)}, got {st.phase!r}")
    st.first = _int(data, "first_player", "state", 0, n - 1, 0)
    last = get_key(data, "last_round", "state", (int, type(None)), None)
    st.last_round = None if last is None else _int(data, "last_round", "state", 1, 10_000)
    st.wh = _int(data, "watering_hole", "state", 0, 10_000, 0)
    st.cliff = _int(data, "cliff", "state", 0, 10_000, 0)
    st.deck = _cards(data, "deck", "state", [])[::-1]
    st.reserve = _cards(data, "reserve", "state", [])[::-1]
    st.reserve_used = get_key(data, "reserve_used", "state", bool, False)
    st.discard = _cards(data, "discard", "state", [])
    st.shuffles = _int(data, "shuffles", "state", 0, 1_000_000, 0)
    ids = [1 + max(_given_ids(seats), default=-1)]  # species without an id get the ids above every given one
    for seat, seat_data in enumerate(seats):
        _load_seat(st, seat, seat_data, ids)
    ids = sorted(st.by_sid)
    st.next_sid = _int(data, "next_species_id", "state", (ids[-1] + 1) if ids else 0, 1 << 30,
                       (ids[-1] + 1) if ids else 0)
    st.passes = _int(data, "passes", "state", 0, n, 0)
    st.acted = get_key(data, "acted", "state", bool, False)
    st.negated = list(get_key(data, "negated", "state", list, []))
    for name in st.negated:
        if not isinstance(name, str) or name not in KIND:
            raise InvalidState(f"state.negated: unknown trait {name!r}")
    if "stack" in data and "turn" in data:
        raise InvalidState("state.turn: give the seat to act either as state.turn or in state.stack, not both")
    if "stack" in data:
        st.stack = [STEPS.load(t, f"state.stack[{i}]", lambda kind, arg: arg_ok(st, kind, arg))
                    for i, t in enumerate(get_key(data, "stack", "state", list))]
    else:
        st.stack = default_stack(st, _int(data, "turn", "state", 0, n - 1, st.first))
    try:
        st.settle()
        if not st.settled:  # the forced steps are taken on a copy, so that one that does not fit fails here
            st.clone().advance()
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise InvalidState(f"state.stack does not fit the board: {exc!r}") from None
    return st


def _given_ids(seats: list[Any]) -> list[int]:
    rows = [seat.get("species") for seat in seats if isinstance(seat, Mapping)]
    return [sp["id"] for row in rows if isinstance(row, list) for sp in row
            if isinstance(sp, Mapping) and isinstance(sp.get("id"), int)]


def _load_seat(st: EvolutionState, seat: int, d: Any, ids: list[int]) -> None:
    where = f"seats[{seat}]"
    if not isinstance(d, Mapping):
        raise InvalidState(f"{where} must be an object")
    check_keys(d, where, SEAT_KEYS)
    st.hands[seat] = sorted(_cards(d, "hand", where, []))
    st.bags[seat] = _int(d, "bag", where, 0, 1_000_000, 0)
    food_card = get_key(d, "food_card", where, (str, type(None)), None)
    if food_card is not None:
        st.food_cards[seat] = _cards({"c": [food_card]}, "c", f"{where}.food_card")[0]
    for i, sp_data in enumerate(get_key(d, "species", where, list, [])):
        sp = _load_species(st, seat, sp_data, f"{where}.species[{i}]", ids)
        st.rows[seat].append(sp)
        st.by_sid[sp.sid] = sp


def _load_species(st: EvolutionState, seat: int, d: Any, where: str, ids: list[int]) -> Species:
    if not isinstance(d, Mapping):
        raise InvalidState(f"{where} must be an object")
    check_keys(d, where, SPECIES_KEYS)
    sid = _int(d, "id", where, 0, 1 << 30, ids[0])
    if "id" not in d:
        ids[0] += 1
    if sid in st.by_sid:
        raise InvalidState(f"{where}.id {sid} is used twice")
    avian = get_key(d, "avian", where, bool, False)
    body = _int(d, "body_size", where, 1, 3 if avian else 6, 1)
    pop = _int(d, "population", where, 1, MAX_POPULATION, 1)
    sp = Species(sid, seat, avian, _cards(d, "traits", where, [], board=True), _cards(d, "face_down", where, [], True),
                 body, pop, _int(d, "food", where, 0, pop, 0), _int(d, "fat", where, 0, body, 0),
                 _int(d, "upkeep", where, 0, body if avian else 0, 0))
    kinds = [CARD_BIT[c] for c in sp.cards + sp.hidden]
    if len(kinds) > 3 or len(set(kinds)) != len(kinds):
        raise InvalidState(f"{where}: at most 3 traits and no duplicates (ruling 9)")
    if any(b & EVENT_BITS for b in kinds):
        raise InvalidState(f"{where}: an event card cannot be a trait (ruling 11)")
    if any(CARD_BIT[c] == FLIGHT for c in sp.hidden) or (sp.mask & FLIGHT and not avian):
        raise InvalidState(f"{where}: Flight comes only face up, on an avian species (ruling 7)")
    return sp


def arg_ok(st: EvolutionState, kind: str, arg: Any) -> bool:
    is_int = isinstance(arg, int) and not isinstance(arg, bool)
    if kind == "seat":
        return is_int and 0 <= arg < st.n
    if kind == "sid":
        return is_int and 0 <= arg < st.next_sid
    if kind == "int":
        return is_int and 0 <= arg <= 1000
    if kind == "bool":
        return isinstance(arg, bool)
    if kind == "str":
        return isinstance(arg, str) and arg in ("play", "food_card", "body", "population")
    if not isinstance(arg, (str, list)):
        return False
    if kind == "src":
        return arg in SOURCE_NAMES
    if kind == "card":
        return arg in CARD_STR
    if kind == "trait":
        return isinstance(arg, str) and arg in KIND
    if kind == "triggers":
        return isinstance(arg, list) and all(
            isinstance(x, list) and len(x) == 2 and arg_ok(st, "sid", x[0]) and arg_ok(st, "trait", x[1])
            for x in arg)
    return False


def default_stack(st: EvolutionState, turn: int) -> list[Task]:
    """The steps left in the current phase, from seat `turn` to the last seat before the first player again."""
    n = st.n
    seats = [(turn + i) % n for i in range((st.first - turn) % n or n)]
    later = list(reversed(seats))
    if st.phase == "food_card":
        every = list(reversed(st.order()))
        return [StartFeeding(), RevealTraits(), *[AskPlay(s) for s in every], SetPhase("play"),
                *[AskFood(s) for s in later]]
    if st.phase == "play":
        return [StartFeeding(), RevealTraits(), *[AskPlay(s) for s in later]]
    if st.phase == "before_reveal":
        return [RevealFood(), *[Leafy(s) for s in later]]
    if st.phase == "feeding":
        return [FeedTurn(turn)]
    return []
