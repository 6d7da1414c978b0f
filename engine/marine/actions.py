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
from engine.marine.step_registry import (
    AskCardMove,
    AskDominate,
    AskMigrate,
    AskNewTile,
    AskSpeciate,
    AskStack,
    AskWanderCorner,
    AskWanderElement,
    AskWanderMove,
    ask,
)

DONE = "done"


def as_hex(value: Any) -> Hex:
    return (value[0], value[1])


# -- Speciation: choose an element; every tile touching it gets species --------------------------------------------

def speciate_answer(st: MarineState, t: AskSpeciate, corner: Any) -> None:
    seat = t.seat
    added = []
    for h in corner_hexes((corner[0], corner[1], corner[2])):
        if h in st.terrain:
            got = st.add_species(seat, h, SPECIATION_PER_TILE)
            if got:
                added.append([h[0], h[1], got])
    st.event(event="speciation", seat=seat, corner=list(corner), element=ELEMENTS[st.elements[
        (corner[0], corner[1], corner[2])]], added=added)


def speciate_options(st: MarineState, t: AskSpeciate) -> list[Any]:
    return [list(c) for c in sorted(st.elements)]


ask(AskSpeciate, "ask_speciate",
    "speciate", "Speciation: next to which element (a corner [q, r, side])?", (), speciate_options, speciate_answer)


# -- Migration and the card "move" effect: move species one by one, each to an adjacent tile ----------------------

def move_options(st: MarineState, t: AskMigrate | AskCardMove) -> list[Any]:
    """"done", then every move of one species [[q, r] from, [q, r] to] to an adjacent tile, in tile order."""
    seat = t.seat
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


def migrate_answer(st: MarineState, t: AskMigrate, option: Any) -> None:
    if option != DONE:
        move_one(st, t.seat, option)
        if t.moved + 1 < st.options["migration_moves"]:
            st.stack.append(AskMigrate(t.seat, t.moved + 1))


def card_move_answer(st: MarineState, t: AskCardMove, option: Any) -> None:
    if option != DONE:
        move_one(st, t.seat, option)
        if t.left > 1:
            st.stack.append(AskCardMove(t.seat, t.left - 1))


ask(AskMigrate, "ask_migrate",
    "move", "Migration: move a species [from, to] (or done)?", ("int",), move_options, migrate_answer)
ask(AskCardMove, "ask_card_move",
    "move", "Card: move a species [from, to] (or done)?", ("int",), move_options, card_move_answer)


# -- Wanderlust: a new tile from a draw stack, an element on it, then species move onto it ------------------------

def stack_options(st: MarineState, t: AskStack) -> list[Any]:
    return [i for i, s in enumerate(st.stacks) if s]


def stack_answer(st: MarineState, t: AskStack, index: Any) -> None:
    st.stack.append(AskNewTile(t.seat, index))


ask(AskStack, "ask_stack",
    "wanderlust_stack", "Wanderlust: take the top tile of which stack?", (), stack_options, stack_answer)


def open_hexes(st: MarineState) -> list[Hex]:
    """Empty hexes touching at least WANDERLUST_MIN_NEIGHBOURS tiles (or 1, when none does)."""
    counts: dict[Hex, int] = {}
    for h in st.tile_order:
        for n in neighbours(h):
            if n not in st.terrain:
                counts[n] = counts.get(n, 0) + 1
    best = [h for h, c in counts.items() if c >= WANDERLUST_MIN_NEIGHBOURS]
    return sorted(best or counts)


def new_tile_options(st: MarineState, t: AskNewTile) -> list[Any]:
    return [[h[0], h[1]] for h in open_hexes(st)]


def new_tile_answer(st: MarineState, t: AskNewTile, option: Any) -> None:
    seat, h = t.seat, as_hex(option)
    terrain = st.stacks[t.stack].pop()
    st.add_tile(h, terrain)
    st.event(event="new_tile", seat=seat, tile=[h[0], h[1]], terrain=TERRAINS[terrain], stack=t.stack)
    st.stack += [AskWanderMove(s, option, 0) for s in reversed(st.order_from(seat))]
    st.stack.append(AskWanderElement(seat, option))


ask(AskNewTile, "ask_new_tile",
    "wanderlust_hex", "Wanderlust: where does the new tile go?", ("stack",), new_tile_options, new_tile_answer)


def vacant_corners(st: MarineState, h: Hex) -> list[Any]:
    return [list(c) for c in sorted(hex_corners(h)) if c not in st.elements]


def wander_element_options(st: MarineState, t: AskWanderElement) -> list[Any]:
    return list(ELEMENTS) if vacant_corners(st, as_hex(t.tile)) else []


def wander_element_answer(st: MarineState, t: AskWanderElement, element: Any) -> None:
    st.stack.append(AskWanderCorner(t.seat, t.tile, element))


ask(AskWanderElement, "ask_wander_element",
    "wanderlust_element", "Wanderlust: which element goes on the new tile?", ("hex",), wander_element_options,
    wander_element_answer)


def place_element(st: MarineState, seat: int, corner: Any, element: str) -> None:
    st.set_element((corner[0], corner[1], corner[2]), ELEMENTS.index(element))
    st.event(event="element", seat=seat, corner=list(corner), element=element)


def wander_corner_options(st: MarineState, t: AskWanderCorner) -> list[Any]:
    return vacant_corners(st, as_hex(t.tile))


def wander_corner_answer(st: MarineState, t: AskWanderCorner, corner: Any) -> None:
    place_element(st, t.seat, corner, t.element)


ask(AskWanderCorner, "ask_wander_corner",
    "wanderlust_corner", "Wanderlust: on which corner of the new tile?", ("hex", "element"), wander_corner_options,
    wander_corner_answer)


def wander_move_options(st: MarineState, t: AskWanderMove) -> list[Any]:
    seat, target = t.seat, as_hex(t.tile)
    options: list[Any] = [DONE]
    options += [[h[0], h[1]] for h in st.adjacent(target) if st.species[h][seat] > 0]
    return options


def wander_move_answer(st: MarineState, t: AskWanderMove, option: Any) -> None:
    if option == DONE:
        return
    seat, moved = t.seat, t.moved + 1
    st.move_species(seat, as_hex(option), as_hex(t.tile))
    st.event(event="moved", seat=seat, source=list(option), target=list(t.tile))
    if moved < WANDERLUST_MOVES:
        st.stack.append(AskWanderMove(seat, t.tile, moved))


ask(AskWanderMove, "ask_wander_move",
    "wanderlust_move", "Wanderlust: move a species onto the new tile from which tile (or done)?", ("hex", "int"),
    wander_move_options, wander_move_answer)


# -- Domination (the seed) -------------------------------------------------------------------------------------------

def dominate_answer(st: MarineState, t: AskDominate, element: Any) -> None:
    """1. take control of the special pawn; 2. take the control marker; 3. raise the target marker."""
    seat, e = t.seat, ELEMENTS.index(element)
    pawn = st.special[e]
    if pawn.place in (SETUP, READY):  # in front of a player or on its setup space: in front of you, available
        pawn.place = READY
    # on the action display it stays; whoever controls it collects it at the retrieve
    pawn.controller = seat
    value = st.domination_values(e)[seat]
    pawn.target = max(pawn.target, value)  # the target marker moves up to the domination value, never down
    st.event(event="domination", seat=seat, element=element, value=value, target=pawn.target)


def dominate_options(st: MarineState, t: AskDominate) -> list[Any]:
    return [ELEMENTS[e] for e in dominated(st, t.seat)]


ask(AskDominate, "ask_dominate",
    "dominate", "Domination: which element type that you dominate?", (), dominate_options, dominate_answer)
