"""Phases 1-3: deal, the secret food card, and playing cards; then the reveal of face-down traits."""

from __future__ import annotations

from typing import Any

from engine.evolution.cards import CARD_BIT, CARD_ID, CARD_KIND, CARD_STR, IS_EVENT, MAX_AVIAN, TRAITS
from engine.evolution.species import MAX_POPULATION, Species
from engine.evolution.state import EvolutionState, distinct_cards
from engine.evolution.step_registry import (
    ASK_AVIAN_CARD,
    ASK_DISCARD_SPECIES,
    ASK_GROW,
    ASK_PLAY,
    ASK_SIDE,
    AskAvianCard,
    AskDiscardSpecies,
    AskDiscardTrait,
    AskFood,
    AskGrow,
    AskPlay,
    AskReplace,
    AskSide,
    AskTraitSpecies,
    AskUse,
    Nesting,
    RevealTraits,
    RoundStart,
    SetPhase,
    StartFeeding,
    always,
    ask,
    task,
)


@task(RoundStart, "round_start")
def round_start(st: EvolutionState, t: RoundStart) -> None:
    """Phase 1: a land species for every player without one, then 3 cards plus 1 per species (seed 001)."""
    order = st.order()
    for seat in order:
        if not st.rows[seat]:
            st.new_species(seat, avian=False, left=False)
    st.event(event="round", round=st.round, first_player=st.first)
    for seat in order:
        drawn = st.draw(seat, 3 + len(st.rows[seat]), dealing=True)
        st.event(event="dealt", seat=seat, cards=drawn)
    st.phase = "food_card"
    st.stack += [StartFeeding(), RevealTraits()]
    st.stack += [ASK_PLAY[seat] for seat in reversed(order)]
    st.stack.append(SetPhase("play"))
    st.stack += [AskFood(seat) for seat in reversed(order)]


@task(SetPhase, "set_phase", "str")
def set_phase(st: EvolutionState, t: SetPhase) -> None:
    st.phase = t.phase


# -- phase 2: the food card, chosen secretly, one seat after another --------------------------------------------

def food_options(st: EvolutionState, t: AskFood) -> list[Any]:
    return distinct_cards(st.hands[t.seat])


def food_answer(st: EvolutionState, t: AskFood, card: Any) -> None:
    if card is not None:
        st.food_cards[t.seat] = st.take_from_hand(t.seat, card)
        st.event(event="food_card_chosen", seat=t.seat)


ask(AskFood, "ask_food",
    "food_card", "Choose a card to place face down as your food card.", (), food_options, food_answer, always)


# -- phase 3: play cards ----------------------------------------------------------------------------------------

def play_options(st: EvolutionState, t: AskPlay) -> list[Any]:
    (seat,) = t
    options: list[Any] = ["done"]
    options += [["card", c] for c in distinct_cards(st.hands[seat])]
    if any(sp.cards or sp.hidden for sp in st.rows[seat]):
        options.append("discard_trait")
    return options


def play_answer(st: EvolutionState, t: AskPlay, action: Any) -> None:
    (seat,) = t
    if action is None or action == "done":
        st.event(event="done_playing", seat=seat)
        return
    st.stack.append(ASK_PLAY[seat])
    if action == "discard_trait":
        st.stack.append(ASK_DISCARD_SPECIES[seat])
        return
    st.take_from_hand(seat, action[1])
    st.stack.append(AskUse(seat, action[1]))


ask(AskPlay, "ask_play",
    "play", "Play a card from your hand, discard a trait, or finish.", (), play_options, play_answer)


def can_take_trait(sp: Species, bit: int) -> bool:
    return not sp.has_kind(bit)


def use_options(st: EvolutionState, t: AskUse) -> list[Any]:
    seat, card = t
    cid = CARD_ID[card]
    row = st.rows[seat]
    uses: list[Any] = []
    if not IS_EVENT[cid]:  # events stay in hand for phase 4 (ruling 11)
        bit = CARD_BIT[cid]
        for sp in row:
            if not sp.has_kind(bit):
                uses.append("trait")
                break
    uses.append("species")
    if st.flight and st.hands[seat] and st.avian_count() < MAX_AVIAN:
        uses.append("avian")  # ruling 6, 7
    for sp in row:
        if sp.body < sp.max_body():
            uses.append("body")
            break
    for sp in row:
        if sp.pop < MAX_POPULATION:
            uses.append("population")
            break
    return uses


def use_answer(st: EvolutionState, t: AskUse, use: Any) -> None:
    seat, card = t
    if use == "trait":
        st.stack.append(AskTraitSpecies(seat, card))
        return
    st.discard_card(CARD_ID[card])
    st.event(event="card_discarded", seat=seat, card=card, use=use)
    if use == "species":
        st.stack.append(ASK_SIDE[False][seat])
    elif use == "avian":
        st.stack.append(ASK_AVIAN_CARD[seat])
    else:
        st.stack.append(ASK_GROW[use][seat])


ask(AskUse, "ask_use",
    "card_use", "Use the card as a trait, for a new species, or for growth.", ("card",), use_options, use_answer,
    always)


def trait_species_options(st: EvolutionState, t: AskTraitSpecies) -> list[Any]:
    bit = CARD_BIT[CARD_ID[t.card]]
    return [i for i, sp in enumerate(st.rows[t.seat]) if can_take_trait(sp, bit)]


def trait_species_answer(st: EvolutionState, t: AskTraitSpecies, i: Any) -> None:
    seat, card = t.seat, t.card
    if i is None:  # no species can take it (only in a hand-made state): the card goes back to the hand
        st.hands[seat].append(CARD_ID[card])
        st.hands[seat].sort()
        return
    sp = st.rows[seat][i]
    if sp.trait_count() >= 3:  # ruling 9: a full species swaps one trait out
        st.stack.append(AskReplace(seat, sp.sid, card))
        return
    sp.hidden.append(CARD_ID[card])
    st.event(event="trait_played_face_down", seat=seat, species=i)


ask(AskTraitSpecies, "ask_trait_species",
    "trait_species", "Choose the species that gets the trait.", ("card",), trait_species_options, trait_species_answer,
    always)


def replace_options(st: EvolutionState, t: AskReplace | AskDiscardTrait) -> list[Any]:
    sp = st.by_sid[t.sid]
    return [TRAITS[CARD_KIND[c]] for c in sp.cards + sp.hidden]


def replace_answer(st: EvolutionState, t: AskReplace, name: Any) -> None:
    seat, sp, card = t.seat, st.by_sid[t.sid], t.card
    old = next(c for c in sp.cards + sp.hidden if TRAITS[CARD_KIND[c]] == name)
    st.remove_trait(sp, old)  # a replaced Flight keeps the board avian until the reveal (ruling 30)
    sp.hidden.append(CARD_ID[card])
    st.event(event="trait_replaced", seat=seat, species=st.index(sp), discarded=CARD_STR[old])
    st.event(event="trait_played_face_down", seat=seat, species=st.index(sp))


ask(AskReplace, "ask_replace",
    "replace_trait", "The species has three traits: choose the one to discard.", ("sid", "card"), replace_options,
    replace_answer)


def side_options(st: EvolutionState, t: AskSide) -> list[Any]:
    return ["left", "right"] if st.rows[t.seat] else ["right"]


def side_answer(st: EvolutionState, t: AskSide, side: Any) -> None:
    seat, avian = t.seat, t.avian
    sp = st.new_species(seat, avian, left=side == "left")
    st.event(event="new_species", seat=seat, species=st.index(sp), avian=avian)


ask(AskSide, "ask_side",
    "species_side", "Place the new species at the left or the right end of your row.", ("bool",), side_options,
    side_answer)


def avian_card_options(st: EvolutionState, t: AskAvianCard) -> list[Any]:
    return distinct_cards(st.hands[t.seat])


def avian_card_answer(st: EvolutionState, t: AskAvianCard, card: Any) -> None:
    seat = t.seat
    if card is None:
        return
    st.discard_card(st.take_from_hand(seat, card))
    st.event(event="card_discarded", seat=seat, card=card, use="avian")
    st.stack.append(ASK_SIDE[True][seat])


ask(AskAvianCard, "ask_avian_card",
    "avian_card", "Choose the second card to discard for the avian species.", (), avian_card_options,
    avian_card_answer, always)


def grow_options(st: EvolutionState, t: AskGrow) -> list[Any]:
    if t.what == "body":
        return [i for i, sp in enumerate(st.rows[t.seat]) if sp.body < sp.max_body()]
    return [i for i, sp in enumerate(st.rows[t.seat]) if sp.pop < MAX_POPULATION]


def grow_answer(st: EvolutionState, t: AskGrow, i: Any) -> None:
    seat, what = t.seat, t.what
    if i is None:
        return
    sp = st.rows[seat][i]
    if what == "body":
        grow_body(sp)
    else:
        sp.pop += 1
        st.stack.append(Nesting(sp.sid))  # ruling 24: Nesting on every Population gain
    st.event(event="grow", seat=seat, species=i, what=what)


def grow_body(sp: Species) -> None:
    sp.body += 1
    if sp.avian and sp.upkeep < sp.body and sp.food:  # seed 000 Nesting note, ruling 15
        move = min(sp.food, sp.body - sp.upkeep)
        sp.food -= move
        sp.upkeep += move


ask(AskGrow, "ask_grow", "grow_species", "Choose the species to grow (+1 {what}).", ("str",), grow_options, grow_answer)


def discard_species_options(st: EvolutionState, t: AskDiscardSpecies) -> list[Any]:
    return [i for i, sp in enumerate(st.rows[t.seat]) if sp.cards or sp.hidden]


def discard_species_answer(st: EvolutionState, t: AskDiscardSpecies, i: Any) -> None:
    if i is None:
        return
    st.stack.append(AskDiscardTrait(t.seat, st.rows[t.seat][i].sid))


ask(AskDiscardSpecies, "ask_discard_species",
    "discard_trait_species", "Choose the species to discard a trait from.", (), discard_species_options,
    discard_species_answer)


def discard_trait_answer(st: EvolutionState, t: AskDiscardTrait, name: Any) -> None:
    seat, sp = t.seat, st.by_sid[t.sid]
    old = next(c for c in sp.cards + sp.hidden if TRAITS[CARD_KIND[c]] == name)
    st.remove_trait(sp, old)
    if sp.avian and not sp.has_flight_card():
        st.make_land(sp)  # ruling 30: discarding Flight makes it land at once
    st.event(event="trait_discarded", seat=seat, species=st.index(sp), card=CARD_STR[old])


ask(AskDiscardTrait, "ask_discard_trait",
    "discard_trait", "Choose the trait to discard.", ("sid",), replace_options, discard_trait_answer)


@task(RevealTraits, "reveal_traits")
def reveal_traits(st: EvolutionState, t: RevealTraits) -> None:
    """End of phase 3: every face-down trait turns up at once (ruling 10)."""
    revealed = []
    for seat in range(st.n):
        for i, sp in enumerate(st.rows[seat]):
            if sp.hidden:
                revealed.append({"seat": seat, "species": i, "traits": [CARD_STR[c] for c in sp.hidden]})
                sp.cards += sp.hidden
                sp.hidden = []
                sp.refresh()
            if sp.avian and not sp.has_flight_card():
                st.make_land(sp)  # ruling 30
    st.event(event="traits_revealed", revealed=revealed)
