"""The state as plain JSON, both ways. from_dict validates every value, so tests and tools can write any situation
by hand; the optional keys (with their defaults) keep hand-written states short. Without "stack", play goes on
with the placement turn of seat "turn" (by default the first player).

Tiles are {"hex": [q, r], "terrain": name, "species": [count per seat]}; corners are [q, r, "N" or "S"] (see
engine/marine/board.py); "deck" and each of "tile_stacks" list their top first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import JSON, InvalidOptions, InvalidState
from engine.marine.board import corner_hexes
from engine.marine.data import (
    ANIMAL_INDEX,
    ANIMALS,
    CARD_INDEX,
    CARD_NAMES,
    ELEMENT_INDEX,
    ELEMENTS,
    EVOLUTION_SPACES,
    PAWNS_PER_PLAYER,
    SLOTS,
    SPACE_IDS,
    SPECIES_SUPPLY,
    TERRAIN_INDEX,
    TERRAINS,
    TILE_STACKS,
)
from engine.marine.state import DISPLAY, READY, SETUP, MarineState, SpecialPawn
from engine.marine.step_registry import STEPS, Placement
from engine.steps import check_keys, get_key

PHASES = ("play", "over")
# The keys a state dict may hold (docs/rules/marine.md lists each, required or with its default; a test checks).
STATE_KEYS = ("game", "options", "seed", "num_players", "round", "phase", "first_player", "animals", "tiles",
              "elements", "vp", "pawns", "display", "markers", "deck", "slots", "discard", "asteroid_taken",
              "asteroid_discarded", "tile_stacks", "special_pawns", "stack", "turn")
TILE_KEYS = ("hex", "terrain", "species")
SPECIAL_KEYS = ("controller", "place", "target")
VP_PARTS = ("evolution", "cards", "final")
BIG = 1_000_000


def state_to_dict(st: MarineState) -> dict[str, JSON]:
    return {
        "game": "marine",
        "options": dict(st.options),
        "seed": st.seed,
        "num_players": st.n,
        "round": st.round,
        "phase": st.phase,
        "first_player": st.first,
        "animals": [ANIMALS[a] for a in st.animals],
        "tiles": [{"hex": [h[0], h[1]], "terrain": TERRAINS[st.terrain[h]], "species": st.species[h][:]}
                  for h in st.tile_order],
        "elements": [[c[0], c[1], c[2], ELEMENTS[st.elements[c]]] for c in sorted(st.elements)],
        "vp": [dict(zip(VP_PARTS, v, strict=True)) for v in st.vp],
        "pawns": st.pawns[:],
        "display": {space: [seat, pawn] for space, (seat, pawn) in sorted(st.display.items())},
        "markers": [TERRAINS[m] for m in st.markers],
        "deck": [CARD_NAMES[c] for c in reversed(st.deck)],
        "slots": [None if c is None else CARD_NAMES[c] for c in st.slots],
        "discard": [CARD_NAMES[c] for c in st.discard],
        "asteroid_taken": st.asteroid_taken,
        **({"asteroid_discarded": st.asteroid_discarded} if st.names_the_discard() else {}),
        "tile_stacks": [[TERRAINS[t] for t in reversed(s)] for s in st.stacks],
        "special_pawns": {ELEMENTS[e]: sp.to_dict() for e, sp in enumerate(st.special)},
        "stack": [STEPS.to_json(t) for t in st.stack],
    }


# -- reading helpers ---------------------------------------------------------------------------------------------------

def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidState(f"{where} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise InvalidState(f"{where} must be in {lo}..{hi}, got {value!r}")
    return value


def _name(value: Any, where: str, table: Mapping[str, int]) -> int:
    if not isinstance(value, str) or value not in table:
        raise InvalidState(f"{where}: unknown name {value!r}; one of {', '.join(table)}")
    return table[value]


def _list(value: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidState(f"{where} must be a list, got {value!r}")
    if length is not None and len(value) != length:
        raise InvalidState(f"{where} must have {length} items, got {len(value)}")
    return value


def _hex(value: Any, where: str) -> tuple[int, int]:
    q, r = _list(value, where, 2)
    return _int(q, f"{where}[0]", -BIG, BIG), _int(r, f"{where}[1]", -BIG, BIG)


# -- from a dict -------------------------------------------------------------------------------------------------------

def state_from_dict(game: Any, data: Mapping[str, Any]) -> MarineState:
    if not isinstance(data, Mapping):
        raise InvalidState(f"a state must be an object, got {type(data).__name__}")
    check_keys(data, "state", STATE_KEYS)
    if get_key(data, "game", "state", str, "marine") != "marine":
        raise InvalidState(f"state.game must be 'marine', got {data['game']!r}")
    try:
        options = game.validate_options(get_key(data, "options", "state", dict, {}))
    except InvalidOptions as exc:
        raise InvalidState(f"state.options: {exc}") from None
    animals = [_name(a, f"state.animals[{i}]", ANIMAL_INDEX)
               for i, a in enumerate(get_key(data, "animals", "state", list))]
    n = len(animals)
    if not game.min_players <= n <= game.max_players or len(set(animals)) != n:
        raise InvalidState(f"state.animals must name {game.min_players}-{game.max_players} different animals")
    if get_key(data, "num_players", "state", int, n) != n:
        raise InvalidState(f"state.num_players is {data['num_players']!r} but there are {n} animals")
    st = MarineState(options, get_key(data, "seed", "state", int), n)
    st.game = game
    st.animals = animals
    st.round = _int(get_key(data, "round", "state", int, 1), "state.round", 1, 10_000)
    st.phase = get_key(data, "phase", "state", str, "play")
    if st.phase not in PHASES:
        raise InvalidState(f"state.phase must be one of {', '.join(PHASES)}, got {st.phase!r}")
    st.first = _int(get_key(data, "first_player", "state", int, 0), "state.first_player", 0, n - 1)
    _load_tiles(st, get_key(data, "tiles", "state", list))
    _load_elements(st, get_key(data, "elements", "state", list, []))
    _load_seats(st, data)
    _load_cards(st, data)
    _load_specials(st, get_key(data, "special_pawns", "state", dict, {}))
    _load_display(st, get_key(data, "display", "state", dict, {}))
    if "stack" in data and "turn" in data:
        raise InvalidState("state.turn: give the seat to act either as state.turn or in state.stack, not both")
    if "stack" in data:
        st.stack = [STEPS.load(t, f"state.stack[{i}]", lambda kind, arg: arg_ok(st, kind, arg),
                               " (state.tile_stacks, state.tiles)")
                    for i, t in enumerate(get_key(data, "stack", "state", list))]
    else:
        turn = _int(get_key(data, "turn", "state", int, st.first), "state.turn", 0, n - 1)
        st.stack = [] if st.phase == "over" else [Placement(turn, 0)]
    try:
        st.settle()
        probe = st
        if not st.settled:  # the forced steps are taken on a copy, so that one that does not fit fails here
            probe = st.clone()
            probe.advance()
    except (KeyError, IndexError, ValueError, TypeError, AssertionError) as exc:
        raise InvalidState(f"state.stack does not fit the board: {exc!r}") from None
    if probe.phase == "play" and probe.decision() is None:
        raise InvalidState("state.stack: the game runs (phase 'play') but no step is left")
    return st


def _load_tiles(st: MarineState, tiles: list[Any]) -> None:
    if not tiles:
        raise InvalidState("state.tiles: the earth needs at least one tile")
    for i, d in enumerate(tiles):
        where = f"state.tiles[{i}]"
        if not isinstance(d, Mapping):
            raise InvalidState(f"{where} must be an object")
        check_keys(d, where, TILE_KEYS)
        h = _hex(get_key(d, "hex", where, list), f"{where}.hex")
        if h in st.terrain:
            raise InvalidState(f"{where}.hex {list(h)} is used twice")
        st.add_tile(h, _name(get_key(d, "terrain", where, str), f"{where}.terrain", TERRAIN_INDEX))
        counts = _list(get_key(d, "species", where, list, [0] * st.n), f"{where}.species", st.n)
        st.species[h] = [_int(c, f"{where}.species[{s}]", 0, SPECIES_SUPPLY) for s, c in enumerate(counts)]
    for s in range(st.n):
        st.on_board[s] = sum(c[s] for c in st.species.values())
        if st.on_board[s] > SPECIES_SUPPLY:
            raise InvalidState(f"state.tiles: seat {s} has {st.on_board[s]} species, above the {SPECIES_SUPPLY}")


def _load_elements(st: MarineState, elements: list[Any]) -> None:
    for i, item in enumerate(elements):
        where = f"state.elements[{i}]"
        q, r, side, name = _list(item, where, 4)
        corner = (_int(q, f"{where}[0]", -BIG, BIG), _int(r, f"{where}[1]", -BIG, BIG), side)
        if side not in ("N", "S"):
            raise InvalidState(f"{where}[2] must be 'N' or 'S', got {side!r}")
        if corner in st.elements or not any(h in st.terrain for h in corner_hexes(corner)):
            raise InvalidState(f"{where}: corner {list(corner)} is used twice or touches no tile")
        st.set_element(corner, _name(name, f"{where}[3]", ELEMENT_INDEX))


def _load_seats(st: MarineState, data: Mapping[str, Any]) -> None:
    zero = {k: 0 for k in VP_PARTS}
    vps = _list(get_key(data, "vp", "state", list, [zero] * st.n), "state.vp", st.n)
    for s, v in enumerate(vps):
        if not isinstance(v, Mapping):
            raise InvalidState(f"state.vp[{s}] must be an object")
        check_keys(v, f"state.vp[{s}]", VP_PARTS)
        st.vp[s] = [_int(get_key(v, k, f"state.vp[{s}]", int, 0), f"state.vp[{s}].{k}", 0, BIG) for k in VP_PARTS]
    full = PAWNS_PER_PLAYER[st.n]
    pawns = _list(get_key(data, "pawns", "state", list, [full] * st.n), "state.pawns", st.n)
    st.pawns = [_int(p, f"state.pawns[{s}]", 0, full) for s, p in enumerate(pawns)]
    markers = _list(get_key(data, "markers", "state", list), "state.markers", EVOLUTION_SPACES)
    st.markers = [_name(m, f"state.markers[{i}]", TERRAIN_INDEX) for i, m in enumerate(markers)]


def _load_cards(st: MarineState, data: Mapping[str, Any]) -> None:
    def cards(key: str, default: Any = ..., nullable: bool = False) -> list[Any]:
        out: list[Any] = []
        for i, c in enumerate(get_key(data, key, "state", list, default)):
            out.append(None if c is None and nullable else _name(c, f"state.{key}[{i}]", CARD_INDEX))
        return out

    st.deck = cards("deck")[::-1]
    st.slots = cards("slots", nullable=True)
    if len(st.slots) != SLOTS:
        raise InvalidState(f"state.slots must have {SLOTS} items, got {len(st.slots)}")
    st.discard = cards("discard", [])
    every = st.deck + [c for c in st.slots if c is not None] + st.discard
    if len(set(every)) != len(every):
        raise InvalidState("state.deck, state.slots and state.discard hold a card twice")
    st.asteroid_taken = get_key(data, "asteroid_taken", "state", bool, False)
    if st.names_the_discard():
        st.asteroid_discarded = get_key(data, "asteroid_discarded", "state", bool, False)
    elif "asteroid_discarded" in data:
        raise InvalidState("state.asteroid_discarded: marine rules 1 have no such key (the discard set asteroid_taken)")
    stacks = _list(get_key(data, "tile_stacks", "state", list, [[] for _ in range(TILE_STACKS)]), "state.tile_stacks",
                   TILE_STACKS)
    st.stacks = [[_name(t, f"state.tile_stacks[{i}][{j}]", TERRAIN_INDEX) for j, t in enumerate(_list(s, "stack"))]
                 [::-1] for i, s in enumerate(stacks)]


def _load_specials(st: MarineState, specials: Mapping[str, Any]) -> None:
    for key in specials:
        _name(key, "state.special_pawns", ELEMENT_INDEX)
    for e, name in enumerate(ELEMENTS):
        d = specials.get(name, {"controller": None, "place": SETUP, "target": 0})
        where = f"state.special_pawns.{name}"
        if not isinstance(d, Mapping):
            raise InvalidState(f"{where} must be an object")
        check_keys(d, where, SPECIAL_KEYS)
        controller = get_key(d, "controller", where, (int, type(None)), None)
        if controller is not None:
            controller = _int(controller, f"{where}.controller", 0, st.n - 1)
        place = get_key(d, "place", where, str, SETUP)
        if place not in (SETUP, READY, DISPLAY) or (place == SETUP) != (controller is None):
            raise InvalidState(f"{where}.place {place!r}: a pawn on its setup space has no controller, and only "
                               "there ('setup', 'ready' in front of its controller, or 'display')")
        st.special[e] = SpecialPawn(controller, place,
                                    _int(get_key(d, "target", where, int, 0), f"{where}.target", 0, BIG))


def _load_display(st: MarineState, display: Mapping[str, Any]) -> None:
    shown: list[int] = []
    for space in sorted(display):
        where = f"state.display.{space}"
        if space not in SPACE_IDS:
            raise InvalidState(f"{where}: unknown action space")
        seat, pawn = _list(display[space], where, 2)
        seat = _int(seat, f"{where}[0]", 0, st.n - 1)
        if pawn != "pawn":
            shown.append(_name(pawn, f"{where}[1]", ELEMENT_INDEX))
        elif not isinstance(pawn, str):
            raise InvalidState(f"{where}[1] must be 'pawn' or an element")
        st.display[space] = (seat, pawn)
    on_display = [e for e, sp in enumerate(st.special) if sp.place == DISPLAY]
    if sorted(shown) != on_display:
        raise InvalidState("state.display and state.special_pawns disagree on the special pawns on the display")


def arg_ok(st: MarineState, kind: str, arg: Any) -> bool:
    is_int = isinstance(arg, int) and not isinstance(arg, bool)
    if kind == "seat":
        return is_int and 0 <= arg < st.n
    if kind == "int":
        return is_int and 0 <= arg <= 1000
    if kind in ("slot", "space_number"):
        return is_int and 1 <= arg <= SLOTS
    if kind == "space":
        return arg in SPACE_IDS
    if kind == "element":
        return arg in ELEMENTS
    if kind == "stack":
        return is_int and 0 <= arg < len(st.stacks) and bool(st.stacks[arg])
    if kind == "hex":
        return (isinstance(arg, list) and len(arg) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                                for x in arg) and (arg[0], arg[1]) in st.terrain)
    return False
