"""The Ludus bot SDK: write `act(view, decision) -> int`, call `run(act)`.

Inside the sandbox this file is importable as `ludus`::

    import ludus

    def act(view, decision):
        return 0  # the index of the chosen option in decision["options"]

    ludus.run(act)

`run` reads the engine's JSON lines from stdin, calls `act` for every `decide` message, writes
`{"seq": n, "choice": i}` to stdout and flushes. `print` goes to stderr, the seat's log, so stdout carries only the
protocol. With an engine of protocol 2 it answers the hello with `{"type":"hello","views":"patch","reuse":true}`:
each decide then carries only what changed since the last, and `run` rebuilds the whole view, so `act` sees no
difference: it gets a view of its own, and changing it never changes the next one (the parts that did not change
are shared with the view before: a bot that keeps old views and changes new ones should copy what it keeps; a view
act keeps no reference to is patched in place into the next, so key a cache by content, never by id()).
When the engine offers it (`"reuse": true` in its hello: warm seats), `run` plays on after a `result` if another
`hello` follows, and returns at the end of input; its hello answers name the hello's `epoch`. With an engine of
protocol 3 and a `Bot` passed to it (`run(act, bot=bot)`: the only way act reads it), it also asks for the seat's
history (`"history": true`): each decide then carries the events since the last, as this seat saw them, and `run`
keeps them all in `Bot.history`. Without one it does not ask: the worker then builds no events or contexts for it.

For search bots (docs/bots.md, "Search bots"): `Bot.time_left()` is what is left of this move's clock, and `sim`
(`from ludus import sim`) is the engine that plays the match, bound read-only into every sandbox:
`bot.determinize(view, seed)` deals a full state consistent with what the seat has seen.

Unknown message types are ignored; `result` (unless the engine offered reuse) or the end of stdin ends the loop. If
`act` raises, the exception ends the bot (the seat forfeits) and its traceback lands in the log.

This module is self-contained and uses only the standard library: it is copied into every sandbox on its own.
"""

from __future__ import annotations

import json
import sys
import time

TYPE_CHECKING = False  # typing is not imported at run time: every sandboxed seat imports this module as it boots
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any

    Act = Callable[[dict[str, Any], dict[str, Any]], int]

__all__ = ["Bot", "run", "sim"]

PROTOCOL_VERSION = 3
HELLO = b'{"type":"hello","views":"patch","reuse":true}\n'
HELLO_3 = b'{"type":"hello","views":"patch","reuse":true,"history":true}\n'


class _Sim:
    """The engine of the match, imported on first use (a bot that never searches never pays for it): inside the
    sandbox the `engine` package bound read-only at /ludus/engine, outside it the one on the path."""

    @staticmethod
    def load_game(name: str, rules_version: str | None = None) -> Any:
        """The game called name (engine.registry.load_game); raises InvalidOptions for an unknown one."""
        from engine.registry import load_game

        return load_game(name, rules_version)

    @staticmethod
    def determinize(game: Any, seat: int, view: Any, history: list[Any], seed: int, context: Any = None) -> Any:
        """A full state consistent with everything seat's view, history and context (a decide's, protocol 3)
        show, the rest dealt from seed (Game.determinize); raises ValueError naming what does not fit."""
        return game.determinize(seat, view, history, seed, context)

    @staticmethod
    def clone(state: Any) -> Any:
        """An independent copy of state, for a simulation to play on."""
        return state.clone()


sim = _Sim()


class Bot:
    """What the loop knows about the match: `hello` (game, seat, players, options, clock), the last `clock`, and
    (protocol 3) the seat's `history`: every event it was sent this match, oldest first, and the last decide's
    `context` (State.seat_context)."""

    def __init__(self) -> None:
        self.hello: dict[str, Any] = {}
        self.clock: dict[str, Any] = {}
        self.outcome: dict[str, Any] | None = None
        self.history: list[Any] = []
        self.context: dict[str, Any] | None = None
        self.started = time.monotonic()  # when the last decide was read: its clock runs from here
        self._game: Any = None

    @property
    def seat(self) -> int:
        return int(self.hello.get("seat", 0))

    def time_left(self, bank: bool = False) -> float:
        """Milliseconds left for this move: its `move_ms` (plus the seat's `bank_ms` with bank=True) less the time
        since the SDK read the decide. The worker's clock started a little earlier, when it wrote the line: keep a
        margin of some milliseconds."""
        budget = float(self.clock.get("move_ms", 0)) + (float(self.clock.get("bank_ms", 0)) if bank else 0.0)
        return budget - (time.monotonic() - self.started) * 1000

    @property
    def game(self) -> Any:
        """The match's game, at the rules version its hello names (sim.load_game)."""
        key = (self.hello.get("game"), self.hello.get("rules_version"))
        if self._game is None or (self._game.name, self._game.rules_version) != key:
            self._game = sim.load_game(str(key[0]), None if key[1] is None else str(key[1]))
        return self._game

    def determinize(self, view: Any, seed: int) -> Any:
        """A full state consistent with this seat's view, history and context, the unseen dealt from seed."""
        return sim.determinize(self.game, self.seat, view, self.history, seed, self.context)


_PATHS: dict[str, list[str]] = {}  # a path's parts: the same few hundred paths come back in every patch


def _parts(path: str) -> list[str]:
    parts = _PATHS.get(path)
    if parts is None:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
        if len(_PATHS) < 4096:
            _PATHS[path] = parts
    return parts


def _apply_op(target: Any, kind: str, last: str, value: Any) -> None:
    if isinstance(target, list):
        if kind == "add":
            target.insert(len(target) if last == "-" else int(last), value)
        elif kind == "remove":
            del target[int(last)]
        else:
            target[int(last)] = value
    elif kind == "remove":
        del target[last]
    else:
        target[last] = value


def apply_patch(doc: Any, patch: list[dict[str, Any]]) -> Any:
    """Apply an RFC 6902 JSON Patch of add, remove and replace operations to doc, in place; return the result
    (a new object when the patch replaces the root)."""
    for op in patch:
        path = op["path"]
        if path == "":
            doc = op["value"]
            continue
        *parents, last = _parts(path)
        target = doc
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        _apply_op(target, op["op"], last, op.get("value"))
    return doc


def _copy(value: Any) -> Any:
    """A deep copy of plain JSON whose containers are new and whose scalars (immutable) are value's own: cheaper
    than marshal or copy.deepcopy for a view's small values, and the SDK's check that act left its view alone
    (given == view) then finds the same keys and scalars on both sides, which compare by identity."""
    copied: Any
    if type(value) is dict:
        copied = value.copy()
        for key, item in copied.items():
            if type(item) is dict or type(item) is list:
                copied[key] = _copy(item)  # an existing key: the dict does not change size while it is walked
        return copied
    if type(value) is list:
        copied = value.copy()
        for index, item in enumerate(copied):
            if type(item) is dict or type(item) is list:
                copied[index] = _copy(item)
        return copied
    return value


def patched_copy(doc: Any, patch: list[dict[str, Any]]) -> Any:
    """A new document: doc with the patch applied, doc itself unchanged. Only the containers on the patch's paths
    are copied (once each), and the patch's values; the rest is shared with doc. Much cheaper than a deep copy when
    a patch touches a few places of a large view."""
    copies: dict[int, Any] = {}

    def own(obj: Any) -> Any:  # this patch's shallow copy of a container (a copy is its own)
        found = copies.get(id(obj))
        if found is None:
            found = copies[id(obj)] = obj.copy()
            copies[id(found)] = found
        return found

    root = own(doc) if isinstance(doc, (dict, list)) else doc
    values = _copy([op.get("value") for op in patch])  # the patch's values, copied in one go
    for op, value in zip(patch, values, strict=True):
        path = op["path"]
        if path == "":
            root = own(value) if isinstance(value, (dict, list)) else value
            continue
        *parents, last = _parts(path)
        target = root
        for part in parents:
            key: Any = int(part) if isinstance(target, list) else part
            child = own(target[key])
            target[key] = child
            target = child
        _apply_op(target, op["op"], last, value)
    return root


# A path's keys, parsed once a match: its parents' keys (a part of digits as an int, the key of a list, which a view
# has far more often than an object with such a key; every path under the same parent gets the same tuple), its last
# part, and each parent's part as both keys (for an object whose key is digits).
_STEPS: dict[str, tuple[tuple[Any, ...], str, tuple[tuple[Any, str], ...]]] = {}
_PARENTS: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _steps(path: str) -> tuple[tuple[Any, ...], str, tuple[tuple[Any, str], ...]]:
    found = _STEPS.get(path)
    if found is None:
        *parts, last = _parts(path)
        both = tuple((int(p) if p.isascii() and p.isdecimal() else p, p) for p in parts)
        keys = tuple(key for key, _ in both)
        found = (_PARENTS.setdefault(keys, keys) if len(_PARENTS) < 4096 else keys, last, both)
        if len(_STEPS) < 4096:
            _STEPS[path] = found
    return found


def _refs_alone() -> int:
    """What sys.getrefcount reads of a container that only its parent holds, read as _patch_pair reads one: its
    parent's slot, a variable and the call's argument (CPython before 3.13 counts each)."""
    parent: list[Any] = [[]]
    child = parent[0]
    return sys.getrefcount(child)


def _always_shared(container: Any) -> int:
    return 1


# act's last view is patched in place where act holds none of it: a container that only its parent holds (act's
# view itself: only run's variable) cannot be reached by act any more, so copying it first would be waste. Reference
# counts tell, on CPython before 3.13 (the sandbox's is 3.11), where every variable and argument holds a reference;
# a container act kept (or one inside a container it kept, which that one holds too) counts one more and is copied.
# Elsewhere (other implementations, free-threaded builds, 3.14's borrowed references) every container reads as
# held by act and each one on a patch's path is copied, once (owned), as it always was.
_REFCOUNTS = sys.implementation.name == "cpython" and sys.version_info < (3, 13) and _refs_alone() == 3
_getrefcount: Any = sys.getrefcount if _REFCOUNTS else _always_shared
_ALONE = 3 if _REFCOUNTS else 0  # what _getrefcount reads of a container nobody else holds


def _walk(view: Any, given: Any, steps: tuple[tuple[Any, str], ...], owned: set[int]) -> tuple[Any, Any]:
    """The containers at the end of steps in view and in given, given's copied on the way where act may hold them
    (once each: owned)."""
    for at, key in steps:
        if type(view) is list:
            key = at
        view, child = view[key], given[key]
        if _getrefcount(child) > _ALONE and id(child) not in owned:
            child = given[key] = child.copy()
            owned.add(id(child))
        given = child
    return view, given


def _patch_pair(view: Any, given: Any, patch: list[dict[str, Any]]) -> tuple[Any, Any]:
    """apply_patch(view, patch) and the same patch on given, act's last view, in one walk of the patch's paths: the
    loop's usual step, when act's last view is still equal to the SDK's own. given's containers on the paths are
    copied (once each) where act may hold them, as patched_copy does, and patched in place where only the caller's
    variable (given itself) or their parent holds them (_REFCOUNTS): what act kept is never changed. Paths are
    parsed once per match (_steps); an operation whose path has the same parent as the one before it (the discard
    pile's adds, a species' food and population) skips the walk; the usual operations, on an object and at a
    list's end, are done here rather than through _apply_op."""
    # act's last view, read before another variable holds it: run's variable and this argument alone hold it
    # unless act kept it
    root: Any
    if (type(given) is dict or type(given) is list) and _getrefcount(given) > _ALONE:
        root = given.copy()
    else:
        root = given  # patched in place
    owned = {id(root)}  # the containers this patch copied: act's last view keeps its own
    walked = None  # the parents of the last operation's path, if mine and theirs are still its containers
    for op in patch:
        path = op["path"]
        found = _STEPS.get(path)
        if found is None:
            if path == "":  # the whole view replaced
                view = op.get("value")
                root = _copy(view)
                owned.add(id(root))
                walked = None
                continue
            found = _steps(path)
        parents, last, steps = found
        if parents is not walked:  # an operation changes its parent's members, never the parent: it stays valid
            mine: Any = view
            theirs: Any = root
            try:
                for key in parents:  # _walk, inlined, for a view whose parts of digits are list indices
                    mine, child = mine[key], theirs[key]
                    if _getrefcount(child) > _ALONE and id(child) not in owned:
                        child = theirs[key] = child.copy()
                        owned.add(id(child))
                    theirs = child
                walked = parents
            except (KeyError, TypeError):  # an object's key of digits, or a bad path: _walk says which
                mine, theirs = _walk(view, root, steps, owned)
                walked = None
        kind, value = op["op"], op.get("value")
        copied = _copy(value) if type(value) is dict or type(value) is list else value  # scalars are shared
        if type(mine) is dict and kind != "remove":
            mine[last] = value
            theirs[last] = copied
        elif kind == "add" and last == "-" and type(mine) is list:
            mine.append(value)
            theirs.append(copied)
        else:
            _apply_op(mine, kind, last, value)
            _apply_op(theirs, kind, last, copied)
    return view, root


_loads = json.loads
# json.loads's scanner with its defaults, which run calls itself (typeshed does not declare it)
_scan: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _reply_line(seq: Any, choice: Any) -> bytes:
    """A reply that is not two ints (the loop writes those itself, without an encoder): as JSON spells it, so that
    the engine sees what act returned (a bool, a float) and faults it, never a silently converted 1."""
    return json.dumps({"seq": seq, "choice": choice}, separators=(",", ":")).encode("utf-8") + b"\n"


def run(
    act: Act,
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    bot: Bot | None = None,
) -> Bot:
    """Answer every decide with act(view, decision) until result or end of input; return what the loop saw."""
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout.buffer
    state = bot if bot is not None else Bot()
    if stdout is None:
        sys.stdout = sys.stderr  # the author's print() goes to the log, never into the protocol
    view: Any = {}  # the view as the engine sent it, patched; never given to act
    given: Any = None  # what act got last: its own, which it may have changed
    monotonic, write, flush, scan = time.monotonic, out.write, out.flush, _scan
    for line in inp:
        text = line.decode() if type(line) is bytes else line
        try:  # json.loads less its checks, for a line that is one JSON value and its newline: any other
            # line (whitespace around it, more after it, no newline) goes through json.loads itself
            message, end = scan(text, 0)
            if end + 1 != len(text) or text[end] != "\n":
                message = _loads(text)
        except StopIteration:
            message = _loads(text)
        kind = message.get("type") if type(message) is dict else None
        if kind == "decide":
            state.started = monotonic()
            state.clock = message["clock"] if "clock" in message else {}
            if "events" in message:  # protocol 3, asked for in its hello
                state.history += message["events"]
            state.context = message["context"] if "context" in message else None
            if "patch" in message:
                # act's last view, unchanged (one C-level comparison), takes the patch: in place where act kept
                # none of it, else as a copy of the paths it touches; far cheaper than copying the whole view
                # again. A view act changed is copied whole.
                if given is not None and given == view:
                    view, given = _patch_pair(view, given, message["patch"])
                else:
                    view = apply_patch(view, message["patch"])
                    given = _copy(view)
            else:
                view = message.get("view", {})
                given = _copy(view)
            choice, seq = act(given, message["decision"]), message["seq"]
            write(b'{"seq":%d,"choice":%d}\n' % (seq, choice) if type(seq) is int and type(choice) is int
                  else _reply_line(seq, choice))
            flush()
        elif kind == "hello":
            state.hello, state.history = message, []
            version = message.get("protocol", 1)
            if version >= 2:  # a warm seat names the match's epoch: lines before it are dropped
                answer, epoch = HELLO_3 if version >= 3 and bot is not None else HELLO, message.get("epoch")
                write(answer if epoch is None else answer[:-2] + b',"epoch":%d}\n' % epoch)
                flush()
        elif kind == "result":
            state.outcome = message.get("outcome")
            if not state.hello.get("reuse"):
                break
            view, given = {}, None  # a warm seat: the next match's hello may follow, in this process
    return state


if __name__ == "__main__":  # `python sdk.py` plays the first option every time: a smoke test for the pipes
    run(lambda view, decision: 0)
