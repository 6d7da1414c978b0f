"""Marine's steps: one named tuple per step, and the registry that runs them (engine/steps.py explains the machinery).

An ask with no options is skipped (the seed: "do what is possible and skip the rest"). Argument kinds, checked when
a state is read from a dict: seat, int, space, hex, element, slot. A hex (`tile`) is a list [q, r].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from engine.steps import Steps, Task

if TYPE_CHECKING:
    from engine.marine.state import MarineState

STEPS: Steps[MarineState] = Steps()
task, ask = STEPS.task, STEPS.ask

__all__ = ["STEPS", "Task", "ask", "task"]


# -- placement and the end of a round (placement.py) --------------------------------------------------------------

class Placement(NamedTuple):
    seat: int
    idle: int  # seats in a row before this one that could not place


class AskPlace(NamedTuple):
    seat: int


class PutPawn(NamedTuple):
    seat: int
    space: str


class Act(NamedTuple):
    seat: int
    space: str


class Reset(NamedTuple):
    pass


class FinalScoring(NamedTuple):
    pass


# -- the actions (actions.py) ---------------------------------------------------------------------------------------

class AskSpeciate(NamedTuple):
    seat: int


class AskMigrate(NamedTuple):
    seat: int
    moved: int  # moves made so far


class AskCardMove(NamedTuple):
    seat: int
    left: int  # moves left, this one included


class AskStack(NamedTuple):
    seat: int


class AskNewTile(NamedTuple):
    seat: int
    stack: int


class AskWanderElement(NamedTuple):
    seat: int
    tile: list[int]


class AskWanderCorner(NamedTuple):
    seat: int
    tile: list[int]
    element: str


class AskWanderMove(NamedTuple):
    seat: int
    tile: list[int]
    moved: int  # species moved onto the tile so far


class AskDominate(NamedTuple):
    seat: int


# -- the Evolution action and its cards (evolution_action.py) -----------------------------------------------------

class AskEvolutionTile(NamedTuple):
    seat: int
    space: int  # the Evolution space's number, 1 to 5


class AskCard(NamedTuple):
    seat: int
    space: int
    tile: list[int]  # the tile just scored


class FinishCard(NamedTuple):
    seat: int
    slot: int


class CardVp(NamedTuple):
    seat: int
    vp: int


class CardSpecies(NamedTuple):
    seat: int
    tile: list[int]
    amount: int


class AskCardTile(NamedTuple):
    seat: int
    tile: list[int]
    amount: int


class AskCardElement(NamedTuple):
    seat: int
    tile: list[int]
    amount: int  # elements left to place, this one included


class AskCardCorner(NamedTuple):
    seat: int
    tile: list[int]
    element: str
    amount: int


class AskCardRemove(NamedTuple):
    seat: int
    tile: list[int]
    amount: int  # species left to remove, this one included
