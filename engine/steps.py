"""The step machinery both games run on: a state is a board plus a stack of small steps.

A step ("task") is a JSON list [name, *args]. A plain task just runs. An "ask" task is a decision: its first
argument is the deciding seat; it lists that seat's options and its answer function applies the chosen one. A step
with one option is taken for the player, unless its `always` says to offer it (for steps whose number of options
depends on hidden cards, so that whether a seat is asked never tells the others anything). A step with no options
is answered with None, or skipped where the game's state sets `answer_empty` to False. The stack is part of the
state, so a game can stop at any decision and go on from a dict.

Each game keeps its own registry (`Steps`) and argument signatures, checked when a state is read from a dict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from engine.core import JSON, Decision, IllegalAction, InvalidState, State

S = TypeVar("S")
Task = list[Any]


@dataclass(frozen=True)
class Ask(Generic[S]):
    """A decision step."""

    kind: str
    prompt: str
    options: Callable[[S, Task], list[Any]]
    answer: Callable[[S, Task, Any], None]
    always: Callable[[S, Task], bool] | None = None


class Steps(Generic[S]):
    """One game's steps: plain tasks, asks, and the argument kinds of each (its signature)."""

    def __init__(self) -> None:
        self.tasks: dict[str, Callable[[S, Task], None]] = {}
        self.asks: dict[str, Ask[S]] = {}
        self.signatures: dict[str, tuple[str, ...]] = {}

    def task(self, name: str, *signature: str) -> Callable[[Callable[[S, Task], None]], Callable[[S, Task], None]]:
        """Register a plain step (a decorator)."""

        def register(fn: Callable[[S, Task], None]) -> Callable[[S, Task], None]:
            self.tasks[name] = fn
            self.signatures[name] = signature
            return fn

        return register

    def ask(self, name: str, kind: str, prompt: str, signature: tuple[str, ...],
            options: Callable[[S, Task], list[Any]], answer: Callable[[S, Task, Any], None],
            always: Callable[[S, Task], bool] | None = None) -> None:
        """Register a decision step; its first argument is always the deciding seat."""
        self.asks[name] = Ask(kind, prompt, options, answer, always)
        self.signatures[name] = ("seat", *signature)

    def load(self, t: Any, where: str, arg_ok: Callable[[str, Any], bool], hint: str = "") -> Task:
        """A step read from a state dict: a known name with arguments of its signature's kinds (a copy)."""
        if not isinstance(t, list) or not t or not isinstance(t[0], str) or t[0] not in self.signatures:
            raise InvalidState(f"{where} must be a known step [name, ...], got {t!r}")
        signature = self.signatures[t[0]]
        if len(t) != len(signature) + 1:
            raise InvalidState(f"{where}: {t[0]} takes {len(signature)} argument(s), got {t!r}")
        for kind, arg in zip(signature, t[1:], strict=True):
            if not arg_ok(kind, arg):
                raise InvalidState(f"{where}: bad {kind} argument {arg!r} in {t!r}{hint}")
        return deep(t)  # type: ignore[no-any-return]


def deep(value: Any) -> Any:
    """A copy of a JSON list structure (the steps and options hold only lists, strings, ints and bools)."""
    return [deep(x) for x in value] if type(value) is list else value


def same_json(a: Any, b: Any) -> bool:
    """Equality that tells 1, 1.0 and True apart, as JSON does."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            if not same_json(x, y):
                return False
        return True
    return bool(a == b)


def get_key(d: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    """d[key], of this type (an int is never a bool); missing, the default, or InvalidState naming the key."""
    if key not in d:
        if default is ...:
            raise InvalidState(f"{where}: missing key {key!r}")
        return default
    value = d[key]
    if isinstance(value, bool) and kind is int:
        raise InvalidState(f"{where}.{key} must be an integer, got {value!r}")
    if not isinstance(value, kind):
        raise InvalidState(f"{where}.{key} has the wrong type: {value!r}")
    return value


def _decision(task: Task, ask: Ask[Any], options: list[Any]) -> Decision:
    """A Decision built without the frozen dataclass's __init__, which is slow on this hot path."""
    d: Decision = object.__new__(Decision)
    d.__dict__.update(seat=task[1], kind=ask.kind, options=options,
                      prompt=ask.prompt.format(*task) if "{" in ask.prompt else ask.prompt)
    return d


class StepState(State):
    """The engine contract's decision, apply and the step loop, for a state with `stack`, `_decision` and
    `_events` attributes and a class-level `steps` registry."""

    steps: ClassVar[Steps[Any]]
    answer_empty: ClassVar[bool] = True  # an ask with no options is answered with None (False: skipped)
    stack: list[Task]
    _decision: Decision | None
    _events: list[JSON]

    def decision(self) -> Decision | None:
        return self._decision

    def apply(self, action: JSON) -> list[JSON]:
        d = self._decision
        if d is None:
            raise IllegalAction(f"action {action!r}: the game is over")
        if type(action) is tuple:
            action = list(action)
        for chosen in d.options:
            if chosen is action:  # the option object itself, as choose() and most runners pass it
                break
        else:
            for chosen in d.options:
                if chosen == action and same_json(chosen, action):
                    break
            else:
                raise IllegalAction(f"action {action!r} is not an option of {d.kind} for seat {d.seat}")
        events: list[JSON] = []
        self._events = events
        self._decision = None
        task = self.stack.pop()
        self.steps.asks[task[0]].answer(self, task, chosen)
        self.run()
        return events

    def run(self) -> None:
        """Run steps until a decision with two or more options is pending (forced ones are taken) or the end."""
        stack, asks, tasks, answer_empty = self.stack, self.steps.asks, self.steps.tasks, self.answer_empty
        while stack:
            task = stack[-1]
            ask = asks.get(task[0])
            if ask is None:
                stack.pop()
                tasks[task[0]](self, task)
                continue
            options = ask.options(self, task)
            if len(options) > 1 or (options and ask.always is not None and ask.always(self, task)):
                self._decision = _decision(task, ask, options)
                return
            stack.pop()
            if options or answer_empty:
                ask.answer(self, task, options[0] if options else None)
        self._decision = None

    def event(self, **fields: JSON) -> None:
        self._events.append(fields)
