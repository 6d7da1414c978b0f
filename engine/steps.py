"""The step machinery both games run on: a state is a board plus a stack of small steps.

A step ("task") is a small named tuple, one type per step (`Take(sid, amount, src, forage, store)`), registered
with the name it has in JSON: in a state dict it is the list [name, *args]. A plain task just runs. An "ask" task
is a decision: its first field is the deciding seat; it lists that seat's options and its answer function applies
the chosen one. A step with one option is taken for the player, unless its `always` says to offer it (for steps
whose number of options depends on hidden cards, so that whether a seat is asked never tells the others anything).
A step with no options is answered with None, or skipped where the game's state sets `answer_empty` to False. The
stack is part of the state, so a game can stop at any decision and go on from a dict.

Each game keeps its own registry (`Steps`), keyed by the step types, with the argument kinds of each (its signature),
checked when a state is read from a dict. The arguments are never changed in place, so a copied state shares them.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from engine.core import JSON, Decision, IllegalAction, InvalidState, State

S = TypeVar("S")
Task = tuple[Any, ...]  # a step: an instance of a NamedTuple registered with a Steps
T = TypeVar("T", bound=Task)


@dataclass(frozen=True)
class Ask(Generic[S]):
    """A decision step."""

    kind: str
    prompt: str  # may name the step's fields: "Choose a card to discard to negate {trait}."
    options: Callable[[S, Any], list[Any]]
    answer: Callable[[S, Any, Any], None]
    always: Callable[[S, Any], bool] | None = None


class Steps(Generic[S]):
    """One game's steps, keyed by their types: plain tasks, asks, the JSON name and the argument kinds of each."""

    def __init__(self) -> None:
        self.tasks: dict[type, Callable[[S, Any], None]] = {}
        self.asks: dict[type, Ask[S]] = {}
        self.names: dict[type, str] = {}
        self.types: dict[str, type] = {}
        self.signatures: dict[str, tuple[str, ...]] = {}
        self.kinds: dict[str, str] = {}  # a decision kind -> the name of the first ask step of that kind

    def _name(self, step: type[Task], name: str, signature: tuple[str, ...]) -> None:
        """Record the step type's JSON name and signature; ValueError if they do not fit or are taken."""
        fields = getattr(step, "_fields", ())
        if len(fields) != len(signature):
            raise ValueError(f"step {name}: {step.__name__}{fields} does not fit the signature {signature}")
        if name in self.types or step in self.names:
            raise ValueError(f"step {name}: {step.__name__} or its name is registered already")
        self.names[step], self.types[name], self.signatures[name] = name, step, signature

    def task(self, step: type[T], name: str, *signature: str) -> Callable[[Callable[[S, T], None]],
                                                                           Callable[[S, T], None]]:
        """Register a plain step type, named `name` in JSON, run by the decorated function."""

        def register(fn: Callable[[S, T], None]) -> Callable[[S, T], None]:
            self._name(step, name, signature)
            self.tasks[step] = fn
            return fn

        return register

    def ask(self, step: type[T], name: str, kind: str, prompt: str, signature: tuple[str, ...],
            options: Callable[[S, T], list[Any]], answer: Callable[[S, T, Any], None],
            always: Callable[[S, T], bool] | None = None) -> None:
        """Register a decision step type; its first field is always the deciding `seat`."""
        if getattr(step, "_fields", ())[:1] != ("seat",):
            raise ValueError(f"step {name}: the first field of {step.__name__} must be seat")
        self._name(step, name, ("seat", *signature))
        self.asks[step] = Ask(kind, prompt, options, answer, always)
        self.kinds.setdefault(kind, name)

    def load(self, t: Any, where: str, arg_ok: Callable[[str, Any], bool], hint: str = "") -> Task:
        """A step read from a state dict: a known name with arguments of its signature's kinds, as its type."""
        if not isinstance(t, list) or not t or not isinstance(t[0], str) or t[0] not in self.signatures:
            raise InvalidState(f"{where} must be a known step [name, ...], got {t!r}")
        signature = self.signatures[t[0]]
        if len(t) != len(signature) + 1:
            raise InvalidState(f"{where}: {t[0]} takes {len(signature)} argument(s), got {t!r}")
        for kind, arg in zip(signature, t[1:], strict=True):
            if not arg_ok(kind, arg):
                raise InvalidState(f"{where}: bad {kind} argument {arg!r} in {t!r}{hint}")
        return self.types[t[0]](*deep(t[1:]))  # type: ignore[no-any-return]

    def to_json(self, t: Task) -> list[Any]:
        """A step as the JSON list [name, *args]."""
        return [self.names[type(t)], *deep(list(t))]


def deep(value: Any) -> Any:
    """A copy of a JSON list structure (the steps and options hold only lists, strings, ints and bools)."""
    if type(value) is not list:
        return value
    try:  # marshal's round trip copies in C, several times faster (format 2 writes no shared references)
        return marshal.loads(marshal.dumps(value, 2))
    except ValueError:  # what marshal refuses (a subclass of a built-in type, any other object) is kept, as below
        return [_deep(x) for x in value]


def _deep(value: Any) -> Any:
    return [_deep(x) for x in value] if type(value) is list else value


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


def check_keys(d: Mapping[str, Any], where: str, known: tuple[str, ...]) -> None:
    """InvalidState naming the keys of d that are not known (a misspelt optional key would silently default)."""
    unknown = [k for k in d if k not in known]
    if unknown:
        raise InvalidState(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}")


def _decision(task: Any, ask: Ask[Any], options: list[Any]) -> Decision:
    """A Decision built without the frozen dataclass's __init__, which is slow on this hot path."""
    d: Decision = object.__new__(Decision)
    d.__dict__.update(seat=task[0], kind=ask.kind, options=options,
                      prompt=ask.prompt.format(**task._asdict()) if "{" in ask.prompt else ask.prompt)
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

    @property
    def settled(self) -> bool:
        """A decision is pending or no step is left: after run() one of the two holds; after an exact load or
        apply(advance=False) forced steps may be on top of the stack."""
        return self._decision is not None or not self.stack

    def advance(self) -> list[JSON]:
        events: list[JSON] = []
        self._events = events
        self.run()
        return events

    def apply(self, action: JSON, *, advance: bool = True) -> list[JSON]:
        d = self._decision
        if d is None:
            if self.stack:
                raise IllegalAction(f"action {action!r}: forced steps are pending; advance() takes them first")
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
        self.steps.asks[type(task)].answer(self, task, chosen)
        if advance:
            self.run()
        else:
            self.settle()
        return events

    def settle(self) -> None:
        """Set the pending decision from the top step without taking any step: a real decision if the top step is
        one (as run() would stop there), else None (forced steps are pending, or none are left)."""
        self._decision = None
        if self.stack:
            task = self.stack[-1]
            ask = self.steps.asks.get(type(task))
            if ask is not None:
                options = ask.options(self, task)
                if len(options) > 1 or (options and ask.always is not None and ask.always(self, task)):
                    self._decision = _decision(task, ask, options)

    def run(self) -> None:
        """Run steps until a decision with two or more options is pending (forced ones are taken) or the end."""
        stack, asks, tasks, answer_empty = self.stack, self.steps.asks, self.steps.tasks, self.answer_empty
        while stack:
            task = stack[-1]
            step = type(task)
            ask = asks.get(step)
            if ask is None:
                stack.pop()
                tasks[step](self, task)
                continue
            options = ask.options(self, task)
            if len(options) > 1 or (options and ask.always is not None and ask.always(self, task)):
                self._decision = _decision(task, ask, options)
                return
            stack.pop()
            if options or answer_empty:
                ask.answer(self, task, options[0] if options else None)
        self._decision = None

    def options_at(self, step: JSON) -> list[JSON]:
        """The options the decision step `step` would offer in this position, however many (a forced step's one,
        or none): `step` is [name, seat, *args] as in the state dict's stack, where name is the step's name or its
        decision kind ("ask_target" or "attack_target"). The state is not changed. Raises InvalidState naming the
        step when it is not a decision step of this game, or its arguments do not fit the position."""
        if isinstance(step, list) and step and isinstance(step[0], str) and step[0] in self.steps.kinds:
            step = [self.steps.kinds[step[0]], *step[1:]]
        task = self.steps.load(step, "step", self.step_arg_ok)
        ask = self.steps.asks.get(type(task))
        if ask is None:
            raise InvalidState(f"step {step!r} is not a decision step; decision kinds: {', '.join(self.steps.kinds)}")
        try:
            return deep(ask.options(self, task))  # type: ignore[no-any-return]
        except (KeyError, IndexError, ValueError, TypeError, AssertionError) as exc:
            raise InvalidState(f"step {step!r} does not fit this position: {exc!r}") from None

    def step_arg_ok(self, kind: str, arg: Any) -> bool:
        """Whether arg is a valid argument of that kind (a step signature's) in this position; games override."""
        return False

    def event(self, **fields: JSON) -> None:
        self._events.append(fields)
