"""The bot wire protocol (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox): JSON lines between the engine
and a bot process.

One compact UTF-8 JSON object per line, at most MAX_LINE bytes. The engine sends `hello`, then `decide` for every
decision of the bot's seat, then `result`; the bot answers each `decide` with `{"seq": n, "choice": i}`.

Version 2: a bot may answer the engine's hello with its own, `{"type": "hello", "views": "patch"}` (the SDK does).
From then on a `decide` carries, instead of the whole `view`, a `patch`: the RFC 6902 JSON Patch (add, remove and
replace operations only) that turns the view of the bot's previous decide into this one. A bot that sends no hello
(or `"views": "full"`) gets the whole view every time, as in version 1. When the engine's hello says `"reuse": true`
(warm seats, an operator's choice), a bot whose hello said `"reuse": true` too may get another `hello` after a
`result`: the next match of the same bot version, in the same process.

Version 3: the engine's hello says `"protocol": 3` when it can give a seat its history (the game filters events per
seat: Game.seat_events). A bot whose hello says `"history": true` then gets, in each `decide`, `events`: the events
since the previous decide it was sent, as its seat saw them (the first decide after its hello was read holds every
event of the match so far), so that the concatenation of its decides' events is the seat's history; and `context`,
the seat's State.seat_context (the match's options and the steps still to run, nothing the seat may not see), which
Game.determinize takes beside the view and the history. Without the ask, decides are exactly those of version 2.

Standard library only: the message builders are used by the workers, the strict reply parser by the sandbox, and
`parse_message` by the SDK that runs inside the bot process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import compress, count
from operator import ne
from typing import Any, Literal

from engine.core import Decision

JSON = Any

PROTOCOL_VERSION = 3
HISTORY_VERSION = 3  # the first version whose engines send a seat its events
MAX_LINE = 1 << 20  # bytes per line, newline excluded

FaultCode = Literal["bad_json", "stale_seq", "out_of_range", "too_long", "bad_shape"]
FAULT_CODES: tuple[FaultCode, ...] = ("bad_json", "stale_seq", "out_of_range", "too_long", "bad_shape")
MESSAGE_TYPES = ("hello", "decide", "result")
REPLY_KEYS = frozenset({"seq", "choice"})
VIEW_MODES = ("full", "patch")


class ProtocolFault(ValueError):
    """A line that breaks the protocol. `code` is one of FAULT_CODES; the message quotes the offending input."""

    def __init__(self, code: FaultCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code: FaultCode = code


# --- engine -> bot ------------------------------------------------------------------------------------------------


def hello(
    game: str,
    rules_version: str,
    seat: int,
    players: int,
    options: Mapping[str, JSON],
    clock: Mapping[str, int],
    history: bool = False,
) -> dict[str, JSON]:
    """The first message a bot receives: which game, which seat, the options and the clock. With history (the
    game can filter events per seat) it offers version 3, else it speaks version 2."""
    return {
        "type": "hello",
        "protocol": HISTORY_VERSION if history else 2,
        "game": game,
        "rules_version": rules_version,
        "seat": seat,
        "players": players,
        "options": dict(options),
        "clock": dict(clock),
    }


def decide(seq: int, view: Mapping[str, JSON] | None, decision: Decision, clock: Mapping[str, int],
           patch: list[dict[str, JSON]] | None = None, events: list[JSON] | None = None,
           context: Mapping[str, JSON] | None = None) -> dict[str, JSON]:
    """Ask the bot for one choice; `clock` holds this move's `move_ms` and the seat's remaining `bank_ms`. With
    `patch` (version 2), the message carries it instead of the view; with `events` and `context` (version 3, a bot
    that asked for its history), the seat's events since its previous decide and its State.seat_context."""
    message: dict[str, JSON] = {"type": "decide", "seq": seq}
    if patch is not None:
        message["patch"] = patch
    else:
        message["view"] = dict(view) if view is not None else {}
    if events is not None:
        message["events"] = list(events)
    if context is not None:
        message["context"] = dict(context)
    message["decision"] = {"kind": decision.kind, "options": list(decision.options), "prompt": decision.prompt}
    message["clock"] = dict(clock)
    return message


def view_patch(old: JSON, new: JSON, path: str = "", ops: list[dict[str, JSON]] | None = None,
               ) -> list[dict[str, JSON]]:
    """The JSON Patch (RFC 6902: add, remove, replace) that turns `old` into `new`, both plain JSON. With `path` (a
    JSON pointer) the operations turn the part at path of a larger document, and go on the end of `ops` (a game's
    State.seat_patch compares only the parts of a view that changed).

    Objects are compared key by key, and lists of objects (records: seats, species, tiles) of equal length item by
    item; a list that only grew gets `add`s at its end (path `/-`); any other changed list or value is replaced
    whole (a short list of numbers costs fewer bytes, and the bot less work, whole than as one operation per item),
    and so is an object (below the root) most of whose members changed (the decision's kind, prompt and options:
    one operation instead of three, fewer bytes, and one copy in the SDK instead of three walks).
    The values in the patch are `new`'s own objects (not copies): encode the patch before `new` changes.
    """
    ops = [] if ops is None else ops
    _diff(old, new, path, ops)
    return ops


def replace_member(part: dict[str, JSON], key: str, value: JSON, path: str, ops: list[dict[str, JSON]]) -> None:
    """Set part[key] to value, and append the operation that does the same at path (a game's State.seat_patch,
    bringing the view it keeps up to date)."""
    part[key] = value
    ops.append({"op": "replace", "path": path, "value": value})


def patch_since(sent: JSON, view: JSON, max_ops: int) -> list[dict[str, JSON]] | None:
    """The patch from the view sent last (None: none yet) to view, or None where it would have more than max_ops
    operations: the whole view is then about as short, and cheaper to apply."""
    if sent is None:
        return None
    patch = view_patch(sent, view)
    return patch if len(patch) <= max_ops else None


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1") if ("~" in key or "/" in key) else key


def _diff(old: JSON, new: JSON, path: str, ops: list[dict[str, JSON]]) -> None:
    """Append the operations that turn old into new at path. Most of a view is unchanged from one decision to the
    next: the members that differ are picked by C-level comparisons (map over `!=`, then compress), and only
    containers are visited by a call of their own. Values equal in Python are equal here (views never turn 1 into
    1.0 or True)."""
    kind = type(new)
    if kind is dict and type(old) is dict:
        keys = list(new)
        if keys == list(old):  # the same keys in the same order: a view's usual case
            changed = list(compress(keys, map(ne, old.values(), new.values())))
            if 2 * len(changed) > len(keys) and path:  # most of it changed: one operation, and fewer bytes
                ops.append({"op": "replace", "path": path, "value": new})
                return
            for key in changed:
                was, value = old[key], new[key]
                if type(value) is type(was) and (type(value) is dict or type(value) is list):
                    _diff(was, value, f"{path}/{_escape(key)}", ops)
                else:
                    ops.append({"op": "replace", "path": f"{path}/{_escape(key)}", "value": value})
        else:
            # An added member goes on the end (RFC 6902): where new has it elsewhere, the bot's object would list its
            # members in another order than the engine's view. Sent whole, it lists them alike.
            if [key for key in old if key in new] + [key for key in keys if key not in old] != keys:
                ops.append({"op": "replace", "path": path, "value": new})
                return
            for key, value in new.items():
                if key not in old:
                    ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
                elif old[key] != value:
                    _diff(old[key], value, f"{path}/{_escape(key)}", ops)
            ops.extend({"op": "remove", "path": f"{path}/{_escape(key)}"} for key in old if key not in new)
    elif kind is list and type(old) is list and len(old) == len(new) and new and type(new[0]) is dict:
        for i in compress(count(), map(ne, old, new)):
            if type(old[i]) is dict and type(new[i]) is dict:
                _diff(old[i], new[i], f"{path}/{i}", ops)
            else:
                ops.append({"op": "replace", "path": f"{path}/{i}", "value": new[i]})
    elif kind is list and type(old) is list and len(old) < len(new) and new[: len(old)] == old:
        ops.extend({"op": "add", "path": f"{path}/-", "value": value} for value in new[len(old):])
    elif old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def result(outcome: Mapping[str, JSON]) -> dict[str, JSON]:
    """The last message: the final outcome (scores, ranks, tie-breaks, termination)."""
    return {"type": "result", "outcome": dict(outcome)}


# --- bot -> engine ------------------------------------------------------------------------------------------------


def reply(seq: int, choice: int) -> dict[str, JSON]:
    """A bot's answer to decide number `seq`: the index of the chosen option."""
    return {"seq": seq, "choice": choice}


# --- framing ------------------------------------------------------------------------------------------------------


def encode(message: Mapping[str, JSON]) -> bytes:
    """One compact JSON line, newline included. Raises ValueError if it is not plain JSON or exceeds MAX_LINE."""
    try:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except TypeError as exc:
        raise ValueError(f"not plain JSON: {exc}") from None
    if len(data) > MAX_LINE:
        raise ValueError(f"a {message.get('type', 'reply')} message of {len(data)} bytes exceeds {MAX_LINE}")
    return data + b"\n"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate keys in {brief(keys)}")
    return dict(pairs)


def brief(value: object) -> str:
    """A value from outside (a bot's reply, an upload's manifest) as an error quotes it: its repr cut to 80 characters,
    as _short cuts a line (a fault's detail goes into the replay and the version's log; a reply's string can be a
    mebibyte); an integer past int()'s digits, which has no repr, by its size."""
    try:
        text = repr(value)
    except ValueError:
        return f"an integer of {value.bit_length() if isinstance(value, int) else '?'} bits"
    return text if len(text) <= 80 else text[:80] + "..."


def _short(line: bytes | str) -> str:
    text = line if isinstance(line, str) else line.decode("utf-8", "replace")
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= 80 else text[:80] + "...")


def loads_line(line: bytes | str) -> JSON:
    """Decode one line as strict JSON (UTF-8, no NaN, no duplicate keys). Raises ProtocolFault."""
    raw = line.encode("utf-8") if isinstance(line, str) else line
    body = raw[:-1] if raw.endswith(b"\n") else raw
    if len(body) > MAX_LINE:
        raise ProtocolFault("too_long", f"a line of {len(body)} bytes exceeds {MAX_LINE}")
    try:
        text = body.decode("utf-8")
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolFault("bad_json", f"{_short(line)} is not a JSON line ({exc})") from None


def _is_int(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The reply as the SDK writes it. Matching it is a tenth of the strict decoder's time; anything else (spaces, other
# key order, a bad value) takes the strict path, which also words the fault.
_PLAIN_REPLY = re.compile(rb'\{"seq":(0|[1-9][0-9]{0,17}),"choice":(0|[1-9][0-9]{0,17})\}')


def parse_reply(line: bytes | str, expected_seq: int, n_options: int) -> int:
    """The choice in a bot's reply line to decide `expected_seq` with `n_options` options. Raises ProtocolFault."""
    plain = _PLAIN_REPLY.fullmatch(line) if isinstance(line, bytes) else None
    if plain is not None and int(plain[1]) == expected_seq and int(plain[2]) < n_options:
        return int(plain[2])
    message = loads_line(line)
    if not isinstance(message, dict):
        raise ProtocolFault("bad_shape", f"{_short(line)} is not an object with seq and choice")
    if set(message) != REPLY_KEYS:
        raise ProtocolFault("bad_shape", f"a reply has exactly the keys seq and choice, got {brief(sorted(message))}")
    seq, choice = message["seq"], message["choice"]
    if not _is_int(seq):
        raise ProtocolFault("bad_shape", f"seq must be an integer, got {brief(seq)}")
    if seq != expected_seq:
        raise ProtocolFault("stale_seq", f"seq {seq} answers no pending decision; expected {expected_seq}")
    if not _is_int(choice):
        raise ProtocolFault("bad_shape", f"choice must be an integer, got {brief(choice)}")
    if not 0 <= choice < n_options:
        raise ProtocolFault("out_of_range", f"choice {choice} is out of range for {n_options} option(s)")
    assert isinstance(choice, int)
    return choice


def bot_hello(line: bytes | str) -> dict[str, JSON] | None:
    """A bot's hello, with its defaults filled in (`views`: "full" or "patch"; `reuse`: whether the bot plays on
    after a result, when the engine's hello offered it; `"history": true` only when it asks for its events,
    version 3), or None when `line` is not a hello (a reply, or not JSON).
    Raises ProtocolFault for a hello that asks for something else."""
    if b'"hello"' not in (line.encode("utf-8") if isinstance(line, str) else line):
        return None
    try:
        message = loads_line(line)
    except ProtocolFault:
        return None
    if not isinstance(message, dict) or message.get("type") != "hello":
        return None
    views, reuse = message.get("views", "full"), message.get("reuse", False)
    if views not in VIEW_MODES:
        raise ProtocolFault("bad_shape", f"a bot's hello asks for views {' or '.join(VIEW_MODES)}, got {brief(views)}")
    if not isinstance(reuse, bool):
        raise ProtocolFault("bad_shape", f"a bot's hello says reuse true or false, got {brief(reuse)}")
    history = message.get("history", False)
    if not isinstance(history, bool):
        raise ProtocolFault("bad_shape", f"a bot's hello says history true or false, got {brief(history)}")
    asked: dict[str, JSON] = {"type": "hello", "views": views, "reuse": reuse}
    return {**asked, "history": True} if history else asked


def parse_message(line: bytes | str) -> dict[str, JSON]:
    """An engine message (hello, decide, result, or a future type). Raises ProtocolFault if it has no string type."""
    message = loads_line(line)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolFault("bad_shape", f"{_short(line)} is not an object with a type")
    return message
