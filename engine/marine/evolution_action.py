"""The seed's Evolution action: score one tile of the space's terrain, then (with a thriving species there) take a
face-up card from a slot at or below the space's number and resolve its effects in order."""

from __future__ import annotations

from typing import Any

from engine.marine.actions import as_hex, place_element, vacant_corners
from engine.marine.data import ANIMALS, ASTEROID_ID, CARD_EFFECTS, CARD_NAMES, ELEMENTS
from engine.marine.state import MarineState
from engine.marine.step_registry import (
    AskCard,
    AskCardCorner,
    AskCardElement,
    AskCardMove,
    AskCardRemove,
    AskCardTile,
    AskEvolutionTile,
    CardSpecies,
    CardVp,
    FinishCard,
    Task,
    ask,
    task,
)


def evolution_tile_options(st: MarineState, t: AskEvolutionTile) -> list[Any]:
    terrain = st.markers[t.space - 1]
    return [[h[0], h[1]] for h in st.tile_order if st.terrain[h] == terrain]


def evolution_tile_answer(st: MarineState, t: AskEvolutionTile, option: Any) -> None:
    seat, space, h = t.seat, t.space, as_hex(option)
    got = st.score(h, 0)
    st.event(event="evolution_score", seat=seat, space=space, tile=list(option), vp=got)
    if st.is_thriving(seat, h):
        st.stack.append(AskCard(seat, space, list(option)))


ask(AskEvolutionTile, "ask_evolution_tile",
    "evolution_tile", "Evolution: score which tile of the space's terrain?", ("space_number",), evolution_tile_options,
    evolution_tile_answer)


def card_options(st: MarineState, t: AskCard) -> list[Any]:
    return [k + 1 for k in range(t.space) if st.slots[k] is not None]


def card_answer(st: MarineState, t: AskCard, slot: Any) -> None:
    """Resolve the card's effects in order; then discard it, slide the cards down and refill slot 5."""
    seat, tile = t.seat, t.tile
    card = st.slots[slot - 1]
    assert card is not None
    st.event(event="card_taken", seat=seat, slot=slot, card=CARD_NAMES[card])
    st.stack.append(FinishCard(seat, slot))
    for effect in reversed(CARD_EFFECTS[card]):
        st.stack.append(effect_task(seat, tile, effect))


ask(AskCard, "ask_card",
    "evolution_card", "Evolution: take the card of which slot?", ("space_number", "hex"), card_options, card_answer)


def effect_task(seat: int, tile: list[int], effect: tuple[object, ...]) -> Task:
    verb, amount = effect
    assert isinstance(amount, int)
    if verb == "vp":
        return CardVp(seat, amount)
    if verb == "species":
        return CardSpecies(seat, tile, amount)
    if verb == "species_near":
        return AskCardTile(seat, tile, amount)
    if verb == "element":
        return AskCardElement(seat, tile, amount)
    if verb == "move":
        return AskCardMove(seat, amount)
    return AskCardRemove(seat, tile, amount)


@task(FinishCard, "finish_card", "seat", "slot")
def finish_card(st: MarineState, t: FinishCard) -> None:
    slot = t.slot - 1
    card = st.take_card(slot)
    if card == ASTEROID_ID:
        st.event(event="asteroid", seat=t.seat)
    st.slide_and_refill(slot)


@task(CardVp, "card_vp", "seat", "int")
def card_vp(st: MarineState, t: CardVp) -> None:
    st.vp[t.seat][1] += t.vp
    st.event(event="vp", seat=t.seat, vp=t.vp)


@task(CardSpecies, "card_species", "seat", "hex", "int")
def card_species(st: MarineState, t: CardSpecies) -> None:
    got = st.add_species(t.seat, as_hex(t.tile), t.amount)
    st.event(event="species", seat=t.seat, tile=list(t.tile), added=got)


def near_options(st: MarineState, t: AskCardTile) -> list[Any]:
    if st.supply(t.seat) <= 0:
        return []
    h = as_hex(t.tile)
    return [[x[0], x[1]] for x in sorted([h, *st.adjacent(h)])]


def near_answer(st: MarineState, t: AskCardTile, option: Any) -> None:
    card_species(st, CardSpecies(t.seat, option, t.amount))


ask(AskCardTile, "ask_card_tile",
    "card_species_tile", "Card: add your species to which tile?", ("hex", "int"), near_options, near_answer)


def card_element_options(st: MarineState, t: AskCardElement) -> list[Any]:
    return list(ELEMENTS) if vacant_corners(st, as_hex(t.tile)) else []


def card_element_answer(st: MarineState, t: AskCardElement, element: Any) -> None:
    st.stack.append(AskCardCorner(t.seat, t.tile, element, t.amount))


ask(AskCardElement, "ask_card_element",
    "card_element", "Card: place which element type?", ("hex", "int"), card_element_options, card_element_answer)


def card_corner_options(st: MarineState, t: AskCardCorner) -> list[Any]:
    return vacant_corners(st, as_hex(t.tile))


def card_corner_answer(st: MarineState, t: AskCardCorner, corner: Any) -> None:
    place_element(st, t.seat, corner, t.element)
    if t.amount > 1:
        st.stack.append(AskCardElement(t.seat, t.tile, t.amount - 1))


ask(AskCardCorner, "ask_card_corner",
    "card_corner", "Card: on which corner of the scored tile?", ("hex", "element", "int"), card_corner_options,
    card_corner_answer)


def remove_options(st: MarineState, t: AskCardRemove) -> list[Any]:
    seat, counts = t.seat, st.species[as_hex(t.tile)]
    return [ANIMALS[st.animals[s]] for s in sorted(range(st.n), key=lambda s: st.animals[s])
            if s != seat and counts[s] > 0]


def remove_answer(st: MarineState, t: AskCardRemove, animal: Any) -> None:
    rival = st.animals.index(ANIMALS.index(animal))
    st.remove_species(rival, as_hex(t.tile), 1)
    st.event(event="removed", seat=t.seat, rival=rival, tile=list(t.tile))
    if t.amount > 1:
        st.stack.append(AskCardRemove(t.seat, t.tile, t.amount - 1))


ask(AskCardRemove, "ask_card_remove",
    "card_remove", "Card: remove a species of which rival animal?", ("hex", "int"), remove_options, remove_answer)
