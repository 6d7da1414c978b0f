"""The seed's Evolution action: score one tile of the space's terrain, then (with a thriving species there) take a
face-up card from a slot at or below the space's number and resolve its effects in order."""

from __future__ import annotations

from typing import Any

from engine.marine.actions import as_hex, place_element, vacant_corners
from engine.marine.data import ANIMALS, ASTEROID_ID, CARD_EFFECTS, CARD_NAMES, ELEMENTS
from engine.marine.state import MarineState
from engine.marine.step_registry import Task, ask, task


def evolution_tile_options(st: MarineState, t: Task) -> list[Any]:
    terrain = st.markers[t[2] - 1]
    return [[h[0], h[1]] for h in st.tile_order if st.terrain[h] == terrain]


def evolution_tile_answer(st: MarineState, t: Task, option: Any) -> None:
    seat, space, h = t[1], t[2], as_hex(option)
    got = st.score(h, 0)
    st.event(event="evolution_score", seat=seat, space=space, tile=list(option), vp=got)
    if st.is_thriving(seat, h):
        st.stack.append(["ask_card", seat, space, list(option)])


ask("ask_evolution_tile", "evolution_tile", "Evolution: score which tile of the space's terrain?", ("space_number",),
    evolution_tile_options, evolution_tile_answer)


def card_options(st: MarineState, t: Task) -> list[Any]:
    return [k + 1 for k in range(t[2]) if st.slots[k] is not None]


def card_answer(st: MarineState, t: Task, slot: Any) -> None:
    """Resolve the card's effects in order; then discard it, slide the cards down and refill slot 5."""
    seat, tile = t[1], t[3]
    card = st.slots[slot - 1]
    assert card is not None
    st.event(event="card_taken", seat=seat, slot=slot, card=CARD_NAMES[card])
    st.stack.append(["finish_card", seat, slot])
    for effect in reversed(CARD_EFFECTS[card]):
        st.stack.append(effect_task(seat, tile, effect))


ask("ask_card", "evolution_card", "Evolution: take the card of which slot?", ("space_number", "hex"), card_options,
    card_answer)


def effect_task(seat: int, tile: list[int], effect: tuple[object, ...]) -> Task:
    verb, amount = effect
    if verb == "vp":
        return ["card_vp", seat, amount]
    if verb == "species":
        return ["card_species", seat, tile, amount]
    if verb == "species_near":
        return ["ask_card_tile", seat, tile, amount]
    if verb == "element":
        return ["ask_card_element", seat, tile, amount]
    if verb == "move":
        return ["ask_card_move", seat, amount]
    return ["ask_card_remove", seat, tile, amount]


@task("finish_card", "seat", "slot")
def finish_card(st: MarineState, t: Task) -> None:
    slot = t[2] - 1
    card = st.take_card(slot)
    if card == ASTEROID_ID:
        st.event(event="asteroid", seat=t[1])
    st.slide_and_refill(slot)


@task("card_vp", "seat", "int")
def card_vp(st: MarineState, t: Task) -> None:
    st.vp[t[1]][1] += t[2]
    st.event(event="vp", seat=t[1], vp=t[2])


@task("card_species", "seat", "hex", "int")
def card_species(st: MarineState, t: Task) -> None:
    got = st.add_species(t[1], as_hex(t[2]), t[3])
    st.event(event="species", seat=t[1], tile=list(t[2]), added=got)


def near_options(st: MarineState, t: Task) -> list[Any]:
    if st.supply(t[1]) <= 0:
        return []
    h = as_hex(t[2])
    return [[x[0], x[1]] for x in sorted([h, *st.adjacent(h)])]


ask("ask_card_tile", "card_species_tile", "Card: add your species to which tile?", ("hex", "int"), near_options,
    lambda st, t, o: card_species(st, ["card_species", t[1], o, t[3]]))


def card_element_options(st: MarineState, t: Task) -> list[Any]:
    return list(ELEMENTS) if vacant_corners(st, as_hex(t[2])) else []


def card_element_answer(st: MarineState, t: Task, element: Any) -> None:
    st.stack.append(["ask_card_corner", t[1], t[2], element, t[3]])


ask("ask_card_element", "card_element", "Card: place which element type?", ("hex", "int"), card_element_options,
    card_element_answer)


def card_corner_answer(st: MarineState, t: Task, corner: Any) -> None:
    place_element(st, t[1], corner, t[3])
    if t[4] > 1:
        st.stack.append(["ask_card_element", t[1], t[2], t[4] - 1])


ask("ask_card_corner", "card_corner", "Card: on which corner of the scored tile?", ("hex", "element", "int"),
    lambda st, t: vacant_corners(st, as_hex(t[2])), card_corner_answer)


def remove_options(st: MarineState, t: Task) -> list[Any]:
    seat, counts = t[1], st.species[as_hex(t[2])]
    return [ANIMALS[st.animals[s]] for s in sorted(range(st.n), key=lambda s: st.animals[s])
            if s != seat and counts[s] > 0]


def remove_answer(st: MarineState, t: Task, animal: Any) -> None:
    rival = st.animals.index(ANIMALS.index(animal))
    st.remove_species(rival, as_hex(t[2]), 1)
    st.event(event="removed", seat=t[1], rival=rival, tile=list(t[2]))
    if t[3] > 1:
        st.stack.append(["ask_card_remove", t[1], t[2], t[3] - 1])


ask("ask_card_remove", "card_remove", "Card: remove a species of which rival animal?", ("hex", "int"),
    remove_options, remove_answer)
