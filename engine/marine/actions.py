"""The project-defined actions: Speciation, Migration (and the card "move" effect), Wanderlust; and the seed's
Domination."""

from __future__ import annotations

from typing import Any

from engine.marine.board import Hex, corner_hexes, hex_corners, neighbours
from engine.marine.data import (
    ELEMENTS,
    SPECIATION_PER_TILE,
    TERRAINS,
    WANDERLUST_MIN_NEIGHBOURS,
    WANDERLUST_MOVES,
)
from engine.marine.placement import dominated
from engine.marine.state import READY, SETUP, MarineState
from engine.marine.step_registry import Task, ask

DONE = "done"


def as_hex(value: Any) -> Hex:
    return (value[0], value[1])


# -- Speciation: choose an element; every tile touching it gets species --------------------------------------------

def speciate_answer(st: MarineState, t: Task, corner: Any) -> None:
    seat = t[1]
    added = []
    for h in corner_hexes((corner[0], corner[1], corner[2])):
        if h in st.terrain:
            got = st.add_species(seat, h, SPECIATION_PER_TILE)
            if got:
                added.append([h[0], h[1], got])
    st.event(event="speciation", seat=seat, corner=list(corner), element=ELEMENTS[st.elements[
        (corner[0], corner[1], corner[2])]], added=added)


ask("ask_speciate", "speciate", "Speciation: next to which element (a corner [q, r, side])?", (),
    lambda st, t: [list(c) for c in sorted(st.elements)], speciate_answer)


# -- Migration and the card "move" effect: move species one by one, each to an adjacent tile ----------------------

def move_options(st: MarineState, t: Task) -> list[Any]:
    """"done", then every move of one species [[q, r] from, [q, r] to] to an adjacent tile, in tile order."""
    seat = t[1]
    options: list[Any] = [DONE]
    species = st.species
    for h in st.tile_order:
        if species[h][seat] > 0:
            q, r = h
            options += [[[q, r], [n[0], n[1]]] for n in st.adjacent(h)]
    return options


def move_one(st: MarineState, seat: int, option: Any) -> None:
    source, target = option
    st.move_species(seat, as_hex(source), as_hex(target))
    st.event(event="moved", seat=seat, source=list(source), target=list(target))


def migrate_answer(st: MarineState, t: Task, option: Any) -> None:
    if option != DONE:
        move_one(st, t[1], option)
        if t[2] + 1 < st.options["migration_moves"]:
            st.stack.append(["ask_migrate", t[1], t[2] + 1])


def card_move_answer(st: MarineState, t: Task, option: Any) -> None:
    if option != DONE:
        move_one(st, t[1], option)
        if t[2] > 1:
            st.stack.append(["ask_card_move", t[1], t[2] - 1])


ask("ask_migrate", "move", "Migration: move a species [from, to] (or done)?", ("int",), move_options,
    migrate_answer)
ask("ask_card_move", "move", "Card: move a species [from, to] (or done)?", ("int",), move_options,
    card_move_answer)


# -- Wanderlust: a new tile from a draw stack, an element on it, then species move onto it ------------------------

def stack_options(st: MarineState, t: Task) -> list[Any]:
    return [i for i, s in enumerate(st.stacks) if s]


def stack_answer(st: MarineState, t: Task, index: Any) -> None:
    st.stack.append(["ask_new_tile", t[1], index])


ask("ask_stack", "wanderlust_stack", "Wanderlust: take the top tile of which stack?", (), stack_options,
    stack_answer)


def open_hexes(st: MarineState) -> list[Hex]:
    """Empty hexes touching at least WANDERLUST_MIN_NEIGHBOURS tiles (or 1, when none does)."""
    counts: dict[Hex, int] = {}
    for h in st.tile_order:
        for n in neighbours(h):
            if n not in st.terrain:
                counts[n] = counts.get(n, 0) + 1
    best = [h for h, c in counts.items() if c >= WANDERLUST_MIN_NEIGHBOURS]
    return sorted(best or counts)


def new_tile_options(st: MarineState, t: Task) -> list[Any]:
    return [[h[0], h[1]] for h in open_hexes(st)]


def new_tile_answer(st: MarineState, t: Task, option: Any) -> None:
    seat, h = t[1], as_hex(option)
    terrain = st.stacks[t[2]].pop()
    st.add_tile(h, terrain)
    st.event(event="new_tile", seat=seat, tile=[h[0], h[1]], terrain=TERRAINS[terrain], stack=t[2])
    st.stack += [["ask_wander_move", s, option, 0] for s in reversed(st.order_from(seat))]
    st.stack.append(["ask_wander_element", seat, option])


ask("ask_new_tile", "wanderlust_hex", "Wanderlust: where does the new tile go?", ("stack",), new_tile_options,
    new_tile_answer)


def vacant_corners(st: MarineState, h: Hex) -> list[Any]:
    return [list(c) for c in sorted(hex_corners(h)) if c not in st.elements]


def wander_element_options(st: MarineState, t: Task) -> list[Any]:
    return list(ELEMENTS) if vacant_corners(st, as_hex(t[2])) else []


def wander_element_answer(st: MarineState, t: Task, element: Any) -> None:
    st.stack.append(["ask_wander_corner", t[1], t[2], element])


ask("ask_wander_element", "wanderlust_element", "Wanderlust: which element goes on the new tile?", ("hex",),
    wander_element_options, wander_element_answer)


def place_element(st: MarineState, seat: int, corner: Any, element: str) -> None:
    st.set_element((corner[0], corner[1], corner[2]), ELEMENTS.index(element))
    st.event(event="element", seat=seat, corner=list(corner), element=element)


ask("ask_wander_corner", "wanderlust_corner", "Wanderlust: on which corner of the new tile?", ("hex", "element"),
    lambda st, t: vacant_corners(st, as_hex(t[2])), lambda st, t, c: place_element(st, t[1], c, t[3]))


def wander_move_options(st: MarineState, t: Task) -> list[Any]:
    seat, target = t[1], as_hex(t[2])
    options: list[Any] = [DONE]
    options += [[h[0], h[1]] for h in st.adjacent(target) if st.species[h][seat] > 0]
    return options


def wander_move_answer(st: MarineState, t: Task, option: Any) -> None:
    if option == DONE:
        return
    seat, moved = t[1], t[3] + 1
    st.move_species(seat, as_hex(option), as_hex(t[2]))
    st.event(event="moved", seat=seat, source=list(option), target=list(t[2]))
    if moved < WANDERLUST_MOVES:
        st.stack.append(["ask_wander_move", seat, t[2], moved])


ask("ask_wander_move", "wanderlust_move", "Wanderlust: move a species onto the new tile from which tile (or done)?",
    ("hex", "int"), wander_move_options, wander_move_answer)


# -- Domination (the seed) -------------------------------------------------------------------------------------------

def dominate_answer(st: MarineState, t: Task, element: Any) -> None:
    """1. take control of the special pawn; 2. take the control marker; 3. raise the target marker."""
    seat, e = t[1], ELEMENTS.index(element)
    pawn = st.special[e]
    if pawn.place in (SETUP, READY):  # in front of a player or on its setup space: in front of you, available
        pawn.place = READY
    # on the action display it stays; whoever controls it collects it at the retrieve
    pawn.controller = seat
    value = st.domination_values(e)[seat]
    pawn.target = max(pawn.target, value)  # the target marker moves up to the domination value, never down
    st.event(event="domination", seat=seat, element=element, value=value, target=pawn.target)


ask("ask_dominate", "dominate", "Domination: which element type that you dominate?", (),
    lambda st, t: [ELEMENTS[e] for e in dominated(st, t[1])], dominate_answer)
