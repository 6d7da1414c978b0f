"""The registry of steps. The game runs as a stack of small steps ("tasks"), each a JSON list [name, *args].

A plain task just runs. An "ask" task is a decision: it lists the options for its seat, and its answer function
applies the chosen one. The stack is part of the state, so a game can stop at any decision and go on from a dict.
Argument kinds (for validation of hand-written states): seat, sid, card, src, bool, int, str, trait, triggers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.evolution.state import EvolutionState

Task = list[Any]
TaskFn = Callable[["EvolutionState", Task], None]
OptionsFn = Callable[["EvolutionState", Task], list[Any]]
AnswerFn = Callable[["EvolutionState", Task, Any], None]


AlwaysFn = Callable[["EvolutionState", Task], bool]


@dataclass(frozen=True)
class Ask:
    """A decision step. A step with one option is taken for the player, unless `always` says to offer it: that
    is for steps whose number of options depends on hidden cards, so that whether a seat is asked never tells
    the other seats anything (views show the pending seat and kind)."""

    kind: str
    prompt: str
    options: OptionsFn
    answer: AnswerFn
    always: AlwaysFn | None = None


def always(st: EvolutionState, t: Task) -> bool:
    return True


TASKS: dict[str, TaskFn] = {}
ASKS: dict[str, Ask] = {}
SIGNATURES: dict[str, tuple[str, ...]] = {}


def task(name: str, *signature: str) -> Callable[[TaskFn], TaskFn]:
    def register(fn: TaskFn) -> TaskFn:
        TASKS[name] = fn
        SIGNATURES[name] = signature
        return fn
    return register


def ask(name: str, kind: str, prompt: str, signature: tuple[str, ...], options: OptionsFn,
        answer: AnswerFn, offer_single: AlwaysFn | None = None) -> None:
    """Register a decision step; its first argument is always the deciding seat."""
    ASKS[name] = Ask(kind, prompt, options, answer, offer_single)
    SIGNATURES[name] = ("seat", *signature)
