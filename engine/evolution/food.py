"""Taking food: room, upkeep, Foraging, Fat Tissue, Cooperation, Nesting, and the triggers before the reveal."""

from __future__ import annotations

from typing import Any

from engine.evolution.cards import (
    BROOD_PARASITE,
    CARNIVORE,
    COOPERATION,
    FAT_TISSUE,
    FERTILE,
    FORAGING,
    GOOD_EYESIGHT,
    LONG_NECK,
    NESTING,
)
from engine.evolution.species import MAX_POPULATION, Species
from engine.evolution.state import EvolutionState
from engine.evolution.step_registry import (
    AskFat,
    AskNestSource,
    AskTrigger,
    Coop,
    Leafy,
    Nesting,
    Take,
    Trigger,
    ask,
    task,
)

PLANT_SOURCES = ("watering_hole", "cliff", "bank")
SOURCES = (*PLANT_SOURCES, "meat")


def take_now(st: EvolutionState, sp: Species, amount: int, src: str, forage: bool) -> None:
    """A take the player chose (feeding, Intelligence, Dive Bomb); a species whose only room is fat stores without
    asking (the feeding chose it). Each caller does it last, where a queued Take step would run next anyway: done at
    once, it has the same effects without making the step."""
    take_food(st, sp.sid, amount, src, forage, sp.need() <= 0)


@task(Take, "take", "sid", "int", "src", "bool", "bool")
def take(st: EvolutionState, t: Take) -> None:
    take_food(st, *t)


def take_food(st: EvolutionState, sid: int, amount: int, src: str, forage: bool, store: bool) -> None:
    """A species takes food from a source, as far as it has room (ruling 25): upkeep, then Population, then fat
    by the owner's choice. Foraging adds 1 to plant takes (ruling 26). A real take triggers Cooperation."""
    sp = st.by_sid.get(sid)
    if sp is None:
        return
    mask = sp.mask
    if src != "meat":
        if mask & CARNIVORE:
            return  # carnivores never eat plant food (seed 001)
        if forage and mask & FORAGING:
            amount += 1
        if src == "watering_hole":
            amount = min(amount, st.wh)
        elif src == "cliff":
            amount = min(amount, st.cliff)
    if amount <= 0:
        return
    up_room = sp.body - sp.upkeep if sp.avian else 0
    main = min(amount, up_room + sp.pop - sp.food)
    if main > 0:
        up = min(main, up_room)
        sp.upkeep += up
        sp.food += main - up
        _spend(st, src, main)
        st.event(event="food", seat=sp.owner, species=st.index(sp), amount=main, source=src)
    extra = amount - max(main, 0)
    if extra > 0 and mask & FAT_TISSUE and sp.fat < sp.body:
        most = min(extra, sp.body - sp.fat)
        if store:
            _store(st, sp, most, src)
            main += most
        else:
            st.stack.append(AskFat(sp.owner, sp.sid, src, most, main > 0))  # ruling 14, 29
            return
    if main > 0 and mask & COOPERATION:  # a Coop step is queued only where it acts (see coop)
        st.stack.append(Coop(sp.sid, src))


def _spend(st: EvolutionState, src: str, amount: int) -> None:
    if src == "watering_hole":
        st.wh -= amount
    elif src == "cliff":
        st.cliff -= amount


def _store(st: EvolutionState, sp: Species, amount: int, src: str) -> None:
    sp.fat += amount
    _spend(st, src, amount)
    st.event(event="fat_stored", seat=sp.owner, species=st.index(sp), amount=amount, source=src)


def fat_options(st: EvolutionState, t: AskFat) -> list[Any]:
    sp = st.by_sid.get(t.sid)
    if sp is None:
        return []
    most = min(t.most, sp.body - sp.fat)
    if t.src == "watering_hole":
        most = min(most, st.wh)
    elif t.src == "cliff":
        most = min(most, st.cliff)
    return list(range(max(most, 0) + 1))


def fat_answer(st: EvolutionState, t: AskFat, amount: Any) -> None:
    sp = st.by_sid.get(t.sid)
    if sp is None:
        return
    if amount:
        _store(st, sp, amount, t.src)
    if (amount or t.fed) and sp.mask & COOPERATION:
        st.stack.append(Coop(sp.sid, t.src))


ask(AskFat, "ask_fat",
    "store_fat", "How much food should the Fat Tissue species store?", ("sid", "src", "int", "bool"), fat_options,
    fat_answer)


@task(Coop, "coop", "sid", "src")
def coop(st: EvolutionState, t: Coop) -> None:
    """Cooperation: the right neighbour takes 1 from the same source; the Cliff too, even for land (ruling 15).
    Queued last by a take, so it runs at once, never under a decision: skipping it for a species without
    Cooperation changes no state, event or stored stack."""
    sp = st.by_sid.get(t.sid)
    if sp is None or not sp.mask & COOPERATION:
        return
    row = st.rows[sp.owner]
    i = row.index(sp)
    if i + 1 < len(row):
        st.stack.append(Take(row[i + 1].sid, 1, t.src, False, False))  # no Foraging on it (ruling 26)


@task(Nesting, "nesting", "sid")
def nesting(st: EvolutionState, t: Nesting) -> None:
    """Nesting, for one Population gained (ruling 24): 3 meat if avian, else 1 plant from WH or bank (ruling 18)."""
    sp = st.by_sid.get(t.sid)
    if sp is None or not sp.mask & NESTING:
        return
    if sp.avian:
        st.stack.append(Take(sp.sid, 3, "meat", False, False))
    elif st.wh > 0:
        st.stack.append(AskNestSource(sp.owner, sp.sid))
    else:
        st.stack.append(Take(sp.sid, 1, "bank", True, False))


def nest_source_options(st: EvolutionState, t: AskNestSource) -> list[Any]:
    return ["watering_hole", "bank"] if st.wh > 0 else ["bank"]


def nest_source_answer(st: EvolutionState, t: AskNestSource, src: Any) -> None:
    st.stack.append(Take(t.sid, 1, src, True, False))


ask(AskNestSource, "ask_nest_source",
    "nesting_source", "Nesting: take the plant food from the Watering Hole or the bank?", ("sid",),
    nest_source_options, nest_source_answer)


def gain_population(st: EvolutionState, sp: Species, count: int) -> int:
    """Raise Population by up to count (capped at 6) and queue one Nesting per step gained (ruling 24)."""
    gained = min(count, MAX_POPULATION - sp.pop)
    sp.pop += gained
    for _ in range(gained):
        st.stack.append(Nesting(sp.sid))
    return gained


# -- before the food cards are revealed (ruling 12) -------------------------------------------------------------

LEAFY = (("Fertile", FERTILE), ("Long Neck", LONG_NECK), ("Fat Tissue", FAT_TISSUE),
         ("Good Eyesight", GOOD_EYESIGHT), ("Brood Parasite", BROOD_PARASITE))


def has_trigger(st: EvolutionState, sp: Species, bit: int) -> bool:
    """Whether the trigger can do anything. Before the reveal the Watering Hole only shrinks, so a trigger that
    needs its food and finds none never needs asking about."""
    if bit == FERTILE:
        return st.wh > 0 and sp.pop < MAX_POPULATION
    if bit == LONG_NECK:
        return not sp.mask & CARNIVORE
    if bit == FAT_TISSUE:
        return sp.fat > 0
    if bit == GOOD_EYESIGHT:
        return st.wh > 0 and not sp.mask & CARNIVORE
    if bit == BROOD_PARASITE:
        if not sp.avian:
            return False
        row = st.rows[sp.owner]
        i = row.index(sp)
        return (i > 0 and row[i - 1].avian) or (i + 1 < len(row) and row[i + 1].avian)
    return True


@task(Leafy, "leafy", "seat")
def leafy(st: EvolutionState, t: Leafy) -> None:
    """A player's triggers before the reveal, resolved in the order the player picks (ruling 12, 19)."""
    triggers = [[sp.sid, name] for sp in st.rows[t.seat] for name, bit in LEAFY
                if sp.mask & bit and has_trigger(st, sp, bit)]
    if triggers:
        st.stack.append(AskTrigger(t.seat, triggers))


def trigger_options(st: EvolutionState, t: AskTrigger) -> list[Any]:
    return [[st.index(st.by_sid[sid]), name] for sid, name in t.triggers if sid in st.by_sid]


def trigger_answer(st: EvolutionState, t: AskTrigger, choice: Any) -> None:
    if choice is None:
        return
    seat, (i, name) = t.seat, choice
    sp = st.rows[seat][i]
    rest = [trig for trig in t.triggers if not (trig[0] == sp.sid and trig[1] == name)]
    if rest:
        st.stack.append(AskTrigger(seat, rest))
    st.stack.append(Trigger(sp.sid, name))


ask(AskTrigger, "ask_trigger",
    "trigger_order", "Choose which of your triggers before the reveal resolves next.", ("triggers",), trigger_options,
    trigger_answer)


@task(Trigger, "trigger", "sid", "trait")
def trigger(st: EvolutionState, t: Trigger) -> None:
    sp = st.by_sid.get(t.sid)
    if sp is None:
        return
    name = t.trait
    st.event(event="trigger", seat=sp.owner, species=st.index(sp), trait=name)
    if name == "Fertile":
        if st.wh > 0:  # ruling 12
            gain_population(st, sp, 1)
    elif name == "Long Neck":
        st.stack.append(Take(sp.sid, 1, "bank", True, False))
    elif name == "Fat Tissue":
        move_fat(sp)
    elif name == "Good Eyesight":
        if not sp.mask & CARNIVORE:
            st.stack.append(Take(sp.sid, 2, "watering_hole", True, False))  # ruling 25
    elif name == "Brood Parasite":
        brood_parasite(st, sp)


def move_fat(sp: Species) -> None:
    """Stored fat moves onto the species, upkeep first; this is no "take", so no Cooperation (ruling 29)."""
    up_room = sp.body - sp.upkeep if sp.avian else 0
    moved = min(sp.fat, up_room + sp.pop - sp.food)
    up = min(moved, up_room)
    sp.upkeep += up
    sp.food += moved - up
    sp.fat -= moved


def brood_parasite(st: EvolutionState, sp: Species) -> None:
    """One meat and +1 Population per adjacent avian species of its owner (seed 000); Cooperation once, Nesting
    per Population gained (ruling 24)."""
    if not sp.avian:
        return
    row = st.rows[sp.owner]
    i = row.index(sp)
    count = sum(1 for j in (i - 1, i + 1) if 0 <= j < len(row) and row[j].avian)
    if count:
        gain_population(st, sp, count)
        st.stack.append(Take(sp.sid, count, "meat", False, False))
