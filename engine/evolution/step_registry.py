"""Evolution's steps: one named tuple per step, and the registry that runs them (engine/steps.py explains the
machinery).

Argument kinds (for validation of hand-written states): seat, sid, card, src, bool, int, str, trait, triggers. A
`sid` is a species' id (Species.sid), which stays the same while the species moves along its row; a `card` is a
card's text ("Carnivore 3"); a `src` a food source: watering_hole, cliff, bank or meat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from engine.steps import Steps, Task

if TYPE_CHECKING:
    from engine.evolution.state import EvolutionState

STEPS: Steps[EvolutionState] = Steps()
task, ask = STEPS.task, STEPS.ask

__all__ = ["STEPS", "Task", "always", "ask", "task"]


def always(st: EvolutionState, t: Task) -> bool:
    """For `ask(..., always)`: offer the step even with one option (its count depends on hidden cards)."""
    return True


# -- phases 1-3: deal, the food card, playing cards (card_phases.py) ----------------------------------------------

class RoundStart(NamedTuple):
    pass


class SetPhase(NamedTuple):
    phase: str


class AskFood(NamedTuple):
    seat: int


class AskPlay(NamedTuple):
    seat: int


class AskUse(NamedTuple):
    seat: int
    card: str  # the card played, out of the hand already


class AskTraitSpecies(NamedTuple):
    seat: int
    card: str


class AskReplace(NamedTuple):
    seat: int
    sid: int
    card: str


class AskSide(NamedTuple):
    seat: int
    avian: bool


class AskAvianCard(NamedTuple):
    seat: int


class AskGrow(NamedTuple):
    seat: int
    what: str  # body or population


class AskDiscardSpecies(NamedTuple):
    seat: int


class AskDiscardTrait(NamedTuple):
    seat: int
    sid: int


class RevealTraits(NamedTuple):
    pass


# -- phase 4: feeding and its events (feeding.py) ---------------------------------------------------------------

class StartFeeding(NamedTuple):
    pass


class RevealFood(NamedTuple):
    pass


class FeedTurn(NamedTuple):
    seat: int


class EndTurn(NamedTuple):
    seat: int


class EndFeeding(NamedTuple):
    pass


class AskFeed(NamedTuple):
    seat: int
    dived: bool  # a Dive Bomb was played on this turn


class AskIntelCard(NamedTuple):
    seat: int
    sid: int


class AskDiveSpecies(NamedTuple):
    seat: int


class AskDiveSource(NamedTuple):
    seat: int
    sid: int


# -- taking food, and the triggers before the reveal (food.py) ----------------------------------------------------

class Take(NamedTuple):
    sid: int
    amount: int
    src: str
    forage: bool  # Foraging adds 1 to a plant take
    store: bool  # fat is stored without asking (the species' only room was fat)


class AskFat(NamedTuple):
    seat: int
    sid: int
    src: str
    most: int  # the most it may store
    fed: bool  # it took food before the fat: Cooperation follows whatever it stores


class Coop(NamedTuple):
    sid: int
    src: str


class Nesting(NamedTuple):
    sid: int


class AskNestSource(NamedTuple):
    seat: int
    sid: int


class Leafy(NamedTuple):
    seat: int


class AskTrigger(NamedTuple):
    seat: int
    triggers: list[list[Any]]  # [sid, trait name] of the triggers left


class Trigger(NamedTuple):
    sid: int
    trait: str


# -- attacks (attacks.py) -------------------------------------------------------------------------------------------

class AskTarget(NamedTuple):
    seat: int
    sid: int  # the attacking carnivore


class AskNegate(NamedTuple):
    seat: int
    trait: str


class AskHorns(NamedTuple):
    seat: int


class Attack(NamedTuple):
    attacker: int  # sids
    defender: int


# -- shared steps ---------------------------------------------------------------------------------------------------
# Steps are immutable, so the common ones that only name a seat are made once per seat and shared: making a named
# tuple costs several times a list, and these are pushed at most decisions.

SEATS = range(6)  # ruling 1: up to 6 players
ASK_PLAY = tuple(AskPlay(seat) for seat in SEATS)
ASK_DISCARD_SPECIES = tuple(AskDiscardSpecies(seat) for seat in SEATS)
ASK_SIDE = {avian: tuple(AskSide(seat, avian) for seat in SEATS) for avian in (False, True)}
ASK_AVIAN_CARD = tuple(AskAvianCard(seat) for seat in SEATS)
ASK_GROW = {what: tuple(AskGrow(seat, what) for seat in SEATS) for what in ("body", "population")}
ASK_FEED = {dived: tuple(AskFeed(seat, dived) for seat in SEATS) for dived in (False, True)}
TURN_STEPS = tuple((EndTurn(seat), ASK_FEED[False][seat]) for seat in SEATS)  # feed_turn pushes both
FEED_TURNS = tuple(FeedTurn(seat) for seat in SEATS)
