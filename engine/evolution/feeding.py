"""Phase 4: the reveal, the feeding turns with their events, and the end of feeding."""

from __future__ import annotations

from typing import Any

from engine.evolution.attacks import has_free_target, has_target
from engine.evolution.cards import (
    CARD_FOOD,
    CARD_ID,
    CARD_KIND,
    CARD_STR,
    CARNIVORE,
    DIVE_BOMB,
    INTELLIGENCE,
    SEED_DISPERSAL,
)
from engine.evolution.food import take_now
from engine.evolution.species import Species
from engine.evolution.state import EvolutionState, distinct_cards
from engine.evolution.step_registry import (
    ASK_FEED,
    FEED_TURNS,
    TURN_STEPS,
    AskDiveSource,
    AskDiveSpecies,
    AskFeed,
    AskIntelCard,
    AskTarget,
    EndFeeding,
    EndTurn,
    FeedTurn,
    Leafy,
    RevealFood,
    RoundStart,
    StartFeeding,
    always,
    ask,
    task,
)


@task(StartFeeding, "start_feeding")
def start_feeding(st: EvolutionState, t: StartFeeding) -> None:
    st.phase = "before_reveal"
    st.stack.append(RevealFood())
    st.stack += [Leafy(seat) for seat in reversed(st.order())]


@task(RevealFood, "reveal_food")
def reveal_food(st: EvolutionState, t: RevealFood) -> None:
    """Food cards onto the Watering Hole (a negative total removes food, down to 0); the Cliff gets one food per
    player (ruling 13)."""
    cards = [c for c in st.food_cards if c is not None]
    total = sum(CARD_FOOD[c] for c in cards)
    st.wh = max(0, st.wh + total)
    st.discard += cards
    st.food_cards = [None] * st.n
    if st.flight:
        st.cliff += st.n
    st.phase = "feeding"
    st.passes = 0
    st.acted = False
    st.event(event="food_revealed", cards=[CARD_STR[c] for c in cards], total=total, watering_hole=st.wh,
             cliff=st.cliff)
    st.stack.append(FeedTurn(st.first))


@task(FeedTurn, "feed_turn", "seat")
def feed_turn(st: EvolutionState, t: FeedTurn) -> None:
    (seat,) = t
    st.stack += TURN_STEPS[seat]


@task(EndTurn, "end_turn", "seat")
def end_turn(st: EvolutionState, t: EndTurn) -> None:
    """Ruling 14: feeding ends when a whole round of turns passes with nobody feeding or playing an event."""
    st.passes = 0 if st.acted else st.passes + 1
    st.acted = False
    if st.passes >= st.n:
        st.stack.append(EndFeeding())
    else:
        (seat,) = t
        st.stack.append(FEED_TURNS[(seat + 1) % st.n])


@task(EndFeeding, "end_feeding")
def end_feeding(st: EvolutionState, t: EndFeeding) -> None:
    """Ruling 20, 21: Population drops to its food; no food means extinction; food to the bags; upkeep back."""
    for seat in st.order():
        for sp in list(st.rows[seat]):
            sp.pop = min(sp.pop, sp.food)
            st.bags[seat] += sp.food
            sp.food = 0
            sp.upkeep = 0
            if sp.pop == 0:
                st.extinct(sp)
    if not st.options["cliff_carryover"]:
        st.cliff = 0  # ruling 13
    st.event(event="feeding_over", round=st.round)
    if st.last_round is not None and st.round >= st.last_round:
        st.phase = "over"
        st.event(event="game_over")
        return
    st.first = (st.first + 1) % st.n  # ruling 5
    st.round += 1
    st.stack.append(RoundStart())


# -- the feeding choice, with the events (ruling 11) --------------------------------------------------------------

def feed_options(st: EvolutionState, t: AskFeed) -> list[Any]:
    """[species, how] for every species that can eat; "pass" when only fat could be stored (ruling 14, 29) or
    nothing can eat; then the events the player can play now: Seed Dispersal and Dive Bomb."""
    seat, dived = t
    options = normal_feed_options(st, seat)
    if may_play_event(st, seat):
        if not options:
            options.append("pass")
        hand = distinct_cards(st.hands[seat])
        for c in hand:
            if CARD_KIND[CARD_ID[c]] == SEED_DISPERSAL:
                options += [["seed_dispersal", "watering_hole", c], ["seed_dispersal", "cliff", c]]
        if not dived and any(can_dive(st, sp) for sp in st.rows[seat]):
            for c in hand:
                if CARD_KIND[CARD_ID[c]] == DIVE_BOMB:
                    options += [["dive_bomb", "before", c], ["dive_bomb", "after", c]]
    return options


def may_play_event(st: EvolutionState, seat: int) -> bool:
    """Whether the player might hold a playable event, judged on public facts only: then the feeding choice is
    offered even with a single option, so that other seats learn nothing about the hand from it."""
    return st.flight and bool(st.hands[seat]) and any(sp.avian for sp in st.rows[seat])


def offer_feed(st: EvolutionState, t: AskFeed) -> bool:
    return may_play_event(st, t[0])


def normal_feed_options(st: EvolutionState, seat: int) -> list[Any]:
    """A player must feed while a hungry species can eat for free: from the Watering Hole or the Cliff, or a
    carnivore by attacking a target that needs no card. Paying cards (Intelligence, negations) is optional, and so
    is storing fat: with only those left, the player may pass (ruling 14, 29)."""
    options: list[Any] = []
    must = False
    wh, cliff, cards = st.wh > 0, st.cliff > 0, bool(st.hands[seat])
    for i, sp in enumerate(st.rows[seat]):
        hungry = sp.need() > 0
        if not hungry and not sp.fat_room():
            continue
        if sp.mask & CARNIVORE:
            if has_target(st, sp):
                options.append([i, "attack"])
                must = must or (hungry and has_free_target(st, sp))
            continue
        if wh:
            options.append([i, "watering_hole"])
            must = must or hungry
        if cliff and sp.avian:
            options.append([i, "cliff"])
            must = must or hungry
        if cards and sp.mask & INTELLIGENCE:
            options.append([i, "intelligence"])
    if options and not must:
        options.append("pass")
    return options


def feed_answer(st: EvolutionState, t: AskFeed, action: Any) -> None:
    seat, dived = t
    if action is None or action == "pass":
        st.event(event="pass", seat=seat)
        return
    st.acted = True
    what = action[0]
    if what == "seed_dispersal":
        seed_dispersal(st, seat, action[1], action[2])
        st.stack.append(ASK_FEED[dived][seat])
    elif what == "dive_bomb":
        dive_bomb(st, seat, action[1], action[2])
    else:
        feed(st, seat, st.rows[seat][what], action[1])


def feed(st: EvolutionState, seat: int, sp: Species, how: str) -> None:
    if how == "attack":
        st.stack.append(AskTarget(seat, sp.sid))
    elif how == "intelligence":
        st.stack.append(AskIntelCard(seat, sp.sid))
    else:
        take_now(st, sp, 1, how, True)


ask(AskFeed, "ask_feed",
    "feed", "Choose a species to feed and how, or play an event.", ("bool",), feed_options, feed_answer, offer_feed)


def intel_card_options(st: EvolutionState, t: AskIntelCard) -> list[Any]:
    return distinct_cards(st.hands[t.seat])


def intel_card_answer(st: EvolutionState, t: AskIntelCard, card: Any) -> None:
    """Intelligence on a non-carnivore: one card for 2 plant food from the bank (ruling 16)."""
    sp = st.by_sid.get(t.sid)
    if card is None or sp is None:
        return
    st.discard_card(st.take_from_hand(t.seat, card))
    st.event(event="intelligence", seat=t.seat, species=st.index(sp), card=card)
    take_now(st, sp, 2, "bank", True)


ask(AskIntelCard, "ask_intel_card",
    "intelligence_card", "Choose the card to discard for Intelligence.", ("sid",), intel_card_options,
    intel_card_answer, always)


# -- events: Seed Dispersal before the turn, Dive Bomb on it (ruling 11) ------------------------------------------

def avian_population(st: EvolutionState, seat: int) -> int:
    return sum(sp.pop for sp in st.rows[seat] if sp.avian)


def seed_dispersal(st: EvolutionState, seat: int, place: str, card: str) -> None:
    """Seed Dispersal: food equal to the player's avian Population onto one place (seed 000, ruling 25)."""
    st.discard_card(st.take_from_hand(seat, card))
    amount = avian_population(st, seat)
    if place == "cliff":
        st.cliff += amount
    else:
        st.wh += amount
    st.event(event="seed_dispersal", seat=seat, card=card, place=place, amount=amount)


def can_dive(st: EvolutionState, sp: Species) -> bool:
    if not sp.avian or (sp.need() <= 0 and not sp.fat_room()):
        return False
    return has_target(st, sp) if sp.mask & CARNIVORE else True


def dive_bomb(st: EvolutionState, seat: int, when: str, card: str) -> None:
    """Dive Bomb: an extra feeding with one avian species, before or after the normal feeding (seed 000)."""
    st.discard_card(st.take_from_hand(seat, card))
    st.event(event="dive_bomb", seat=seat, card=card, when=when)
    if when == "before":
        st.stack.append(ASK_FEED[True][seat])
        st.stack.append(AskDiveSpecies(seat))
    else:
        st.stack.append(AskDiveSpecies(seat))
        st.stack.append(ASK_FEED[True][seat])


def dive_species_options(st: EvolutionState, t: AskDiveSpecies) -> list[Any]:
    return [i for i, sp in enumerate(st.rows[t.seat]) if can_dive(st, sp)]


def dive_species_answer(st: EvolutionState, t: AskDiveSpecies, i: Any) -> None:
    if i is None:
        return
    seat = t.seat
    sp = st.rows[seat][i]
    if sp.mask & CARNIVORE:
        st.stack.append(AskTarget(seat, sp.sid))
    else:
        st.stack.append(AskDiveSource(seat, sp.sid))


ask(AskDiveSpecies, "ask_dive_species",
    "dive_bomb_species", "Choose the avian species that dives.", (), dive_species_options, dive_species_answer)


def dive_source_options(st: EvolutionState, t: AskDiveSource) -> list[Any]:
    options: list[Any] = []
    if st.wh > 0:
        options.append("watering_hole")
    if st.cliff > 0:
        options.append("cliff")
    options.append("bank")
    return options


def dive_source_answer(st: EvolutionState, t: AskDiveSource, src: Any) -> None:
    sp = st.by_sid.get(t.sid)
    if sp is not None:
        take_now(st, sp, 3, src, True)  # Foraging and Cooperation as normal (seed 000, ruling 26)


ask(AskDiveSource, "ask_dive_source",
    "dive_bomb_source", "Take the 3 plant food from the Watering Hole, the Cliff or the bank?", ("sid",),
    dive_source_options, dive_source_answer)
