"""Carnivore attacks: who may attack whom (ruling 16), the negations paid with cards, and the attack itself."""

from __future__ import annotations

from typing import Any

from engine.evolution.cards import (
    AMBUSH,
    BIT,
    BURROWING,
    CAMOUFLAGE,
    CLIMBING,
    FLIGHT,
    GOOD_EYESIGHT,
    HARD_SHELL,
    HERDING,
    HORNS,
    INTELLIGENCE,
    PACK_HUNTING,
    SCAVENGER,
    SYMBIOSIS,
    WARNING_CALL,
)
from engine.evolution.species import Species
from engine.evolution.state import EvolutionState, distinct_cards
from engine.evolution.step_registry import AskHorns, AskNegate, AskTarget, Attack, Take, always, ask, task

# Defences in the order they are paid for; each bit is one trait to negate.
DEFENCES = (HARD_SHELL, CLIMBING, BURROWING, HERDING, SYMBIOSIS, WARNING_CALL, CAMOUFLAGE, FLIGHT)
BIT_NAME = {bit: name for name, bit in BIT.items()}
AVIAN_NEGATABLE = SYMBIOSIS | WARNING_CALL | CLIMBING  # seed 000, ruling 16 and 28


def blockers(st: EvolutionState, a: Species, d: Species, row: list[Species] | None = None, i: int = -1) -> int:
    """The defences that stop a from attacking d unless negated, as bits; -1 when nothing can make it legal.
    row and i (d's row and index) may be passed when known."""
    if a is d:
        return -1  # ruling 16: never itself
    am, dm = a.mask, d.mask
    size = a.body + a.pop if am & PACK_HUNTING else a.body
    if size <= d.body:
        return -1
    found = 0
    if dm & HARD_SHELL and size <= d.body + st.hard_shell:
        found |= HARD_SHELL
    if dm & CLIMBING and not am & CLIMBING:
        found |= CLIMBING
    if dm & BURROWING and d.food >= d.pop:
        found |= BURROWING
    if dm & HERDING and a.pop <= d.pop:
        found |= HERDING
    if dm & CAMOUFLAGE and not am & GOOD_EYESIGHT:
        found |= CAMOUFLAGE
    if dm & FLIGHT and not am & FLIGHT:
        found |= FLIGHT
    if dm & SYMBIOSIS or not am & AMBUSH:
        if row is None:
            row = st.rows[d.owner]
            i = row.index(d)
        right = row[i + 1] if i + 1 < len(row) else None
        if dm & SYMBIOSIS and right is not None and right.body > d.body:
            found |= SYMBIOSIS
        if not am & AMBUSH and ((right is not None and right.mask & WARNING_CALL)
                                or (i > 0 and row[i - 1].mask & WARNING_CALL)):
            found |= WARNING_CALL  # one Warning Call defence, however many neighbours give it
    return found


def negatable(a: Species) -> int:
    """What a carnivore can negate by discarding cards: any defence with Intelligence, else an avian carnivore
    only Symbiosis, Warning Call and Climbing (ruling 16)."""
    if a.mask & INTELLIGENCE:
        return -1
    if a.mask & FLIGHT:
        return AVIAN_NEGATABLE
    return 0


def is_target(st: EvolutionState, a: Species, d: Species, can: int, cards: int, row: list[Species], i: int) -> bool:
    found = blockers(st, a, d, row, i)
    if found <= 0:
        return found == 0
    return found & ~can == 0 and found.bit_count() <= cards


def targets(st: EvolutionState, a: Species) -> list[list[int]]:
    can, cards = negatable(a), len(st.hands[a.owner])
    return [[seat, i] for seat, row in enumerate(st.rows) for i, d in enumerate(row)
            if is_target(st, a, d, can, cards, row, i)]


def has_target(st: EvolutionState, a: Species) -> bool:
    can, cards = negatable(a), len(st.hands[a.owner])
    for row in st.rows:
        for i, d in enumerate(row):
            if is_target(st, a, d, can, cards, row, i):
                return True
    return False


def has_free_target(st: EvolutionState, a: Species) -> bool:
    """A target that needs no card: only such an attack is ever forced on the player."""
    for row in st.rows:
        for i, d in enumerate(row):
            if blockers(st, a, d, row, i) == 0:
                return True
    return False


def target_options(st: EvolutionState, t: AskTarget) -> list[Any]:
    a = st.by_sid.get(t.sid)
    return targets(st, a) if a is not None else []


def target_answer(st: EvolutionState, t: AskTarget, target: Any) -> None:
    """Ruling 17: a hungry carnivore that feeds must attack a legal target; it pays for the defences it needs."""
    if target is None:
        return
    seat, a = t.seat, st.by_sid[t.sid]
    d = st.rows[target[0]][target[1]]
    st.negated = []
    st.stack.append(Attack(a.sid, d.sid))
    if d.mask & HORNS and a.mask & INTELLIGENCE:
        st.stack.append(AskHorns(seat))
    found = blockers(st, a, d)
    for bit in reversed(DEFENCES):
        if found & bit:
            st.stack.append(AskNegate(seat, BIT_NAME[bit]))


ask(AskTarget, "ask_target", "attack_target", "Choose the species to attack.", ("sid",), target_options, target_answer)


def negate_options(st: EvolutionState, t: AskNegate) -> list[Any]:
    return distinct_cards(st.hands[t.seat])


def negate_answer(st: EvolutionState, t: AskNegate, card: Any) -> None:
    if card is None:
        return
    seat = t.seat
    st.discard_card(st.take_from_hand(seat, card))
    st.negated.append(t.trait)
    st.event(event="negate", seat=seat, trait=t.trait, card=card)


ask(AskNegate, "ask_negate",
    "negate_card", "Choose a card to discard to negate {trait}.", ("trait",), negate_options, negate_answer, always)


def horns_options(st: EvolutionState, t: AskHorns) -> list[Any]:
    return ["keep", *distinct_cards(st.hands[t.seat])]


def horns_answer(st: EvolutionState, t: AskHorns, choice: Any) -> None:
    if choice is not None and choice != "keep":
        negate_answer(st, AskNegate(t.seat, "Horns"), choice)


ask(AskHorns, "ask_horns",
    "negate_horns", "Discard a card to negate Horns, or keep them?", (), horns_options, horns_answer)


@task(Attack, "attack", "sid", "sid")
def attack(st: EvolutionState, t: Attack) -> None:
    """Resolve an attack (ruling 16, 28): Horns, the defender's loss, the meat, then every other Scavenger."""
    a, d = st.by_sid.get(t.attacker), st.by_sid.get(t.defender)
    negated, st.negated = st.negated, []
    if a is None or d is None:
        return
    horns = bool(d.mask & HORNS) and "Horns" not in negated
    st.event(event="attack", seat=a.owner, species=st.index(a), target=[d.owner, st.index(d)],
             negated=negated, horns=horns)
    if horns:
        a.pop -= 1
        st.trim(a)
    d.pop -= 1
    st.trim(d)
    meat = d.body
    if d.pop <= 0:
        st.extinct(d)
    if a.pop <= 0:
        st.extinct(a)  # ruling 28: the attack completes, but the carnivore takes no meat
    for seat in reversed(st.order()):
        for sp in reversed(st.rows[seat]):
            if sp.mask & SCAVENGER and sp is not a:
                st.stack.append(Take(sp.sid, 1, "meat", False, False))
    if a.pop > 0:
        st.stack.append(Take(a.sid, meat, "meat", False, a.need() <= 0))
