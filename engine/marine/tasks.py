"""The registry of steps. A game runs as a stack of small steps ("tasks"), each a JSON list [name, seat, *args].

A plain task just runs. An "ask" task is a decision: it lists its seat's options and applies the chosen one. A step
with one option is taken for the player, and one with none is skipped (the seed: "do what is possible and skip the
rest"). The stack is part of the state, so a game can stop at any decision and go on from a dict.
Argument kinds, checked when a state is read from a dict: seat, int, space, hex, element, slot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.marine.state import MarineState

Task = list[Any]
TaskFn = Callable[["MarineState", Task], None]
OptionsFn = Callable[["MarineState", Task], list[Any]]
AnswerFn = Callable[["MarineState", Task, Any], None]


@dataclass(frozen=True)
class Ask:
    kind: str
    prompt: str
    options: OptionsFn
    answer: AnswerFn


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
        answer: AnswerFn) -> None:
    """Register a decision step; its first argument is always the deciding seat."""
    ASKS[name] = Ask(kind, prompt, options, answer)
    SIGNATURES[name] = ("seat", *signature)
