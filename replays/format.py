"""The replay format (docs/architecture.md#replays): gzip-compressed canonical JSON. Pure: no Django, no I/O.

A replay document is {"header": ..., "actions": [...], "footer": ...}:
- header: format, game, rules_version, options (complete), seed, players, clock, seats -> bot versions, and for a
  branch its branch point (replays/verify.py, docs/branches.md);
- actions: one record per decision, {"seat", "choice", "ms"} plus "fault" when the seat faulted and "cpu_ms" (the
  CPU time of the move, from the seat's control group) for sandboxed seats;
- footer: the outcome (forfeited seats ranked last), each seat's faults and forfeit flag, and the digest (sha256)
  of all events and the final omniscient view, which later verifications must reproduce.
"""

from __future__ import annotations

import gzip
import json
import marshal
import re
from collections.abc import Callable, Sequence
from typing import Any

import orjson

FORMAT = "ludus-replay"
FORMAT_VERSION = 1
BRANCH_KEYS = ("parent", "step", "force", "resample")  # header.branch, optional: a branch's point (docs/branches.md)


class ReplayFormatError(ValueError):
    """Bytes or a document that are not a replay of a known format version."""


# orjson spells plain JSON (dicts with string keys, lists, tuples, strings, integers up to 64 bits, booleans) as
# json.dumps does with sorted keys, no spaces and UTF-8, escapes included, in a tenth of the time. It refuses other
# keys, larger integers, lone surrogates and deep nesting, and (passed through) subclasses, dataclasses and dates;
# it spells floats its own way (1e16 for 1e+16, null for NaN), and writes some values json.dumps refuses (UUIDs,
# enums, orjson.Fragment). So only values of the exact built-in types go its way (marshal refuses every other
# type, at C speed), and bytes with a float or a null in them, and whatever it refuses, are the standard library's:
# the digests of stored replays never change (tests/replays/test_canonical_json.py).
_ORJSON_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                   | orjson.OPT_PASSTHROUGH_DATETIME)
_NOT_PLAIN = re.compile(rb"null|[0-9][.eE]")  # every float orjson writes has a point or an exponent, or is null


def canonical_json(value: Any) -> bytes:
    """One spelling per value: sorted keys, no spaces, UTF-8. Equal documents give equal bytes."""
    if not _ORJSON_AGREES:
        return _stdlib_json(value)
    try:
        marshal.dumps(value)  # ValueError for anything but the built-in types themselves (not their subclasses)
        data = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except (ValueError, TypeError):  # TypeError: orjson.JSONEncodeError
        return _stdlib_json(value)
    return _stdlib_json(value) if _NOT_PLAIN.search(data) else data


def _stdlib_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def orjson_agrees(dumps: Callable[..., bytes] = orjson.dumps) -> bool:
    """Whether this orjson spells what canonical_json gives it as json.dumps does: every control character, the
    line separators, escapes, characters beyond the BMP (also as keys, whose order is by code point), integer
    extremes, nested keys to sort. Checked once at import: an orjson release that spells any of them differently
    sends every value the standard library's way."""
    text = "".join(map(chr, range(0x20))) + "\x7f\u2028\u2029\"\\/é\U0001f600\U0010ffff"
    probe = {text: [2**64 - 1, 2**63 - 1, -(2**63), 0, -1, True, False, "", [], {}],
             "\U0001f600": {"\uffff": [text], "\ud7ff": {}, "b": {"B": 1, "a": [{"z": "y", "Z": (1, "2")}]}},
             "\uffff": 1, "\ue000": 2, "": 3, "a": 4, "B": 5, "é": 6, "\x00": 7, "\x1f": 8}
    try:
        return dumps(probe, option=_ORJSON_OPTIONS) == _stdlib_json(probe)
    except TypeError:
        return False


_ORJSON_AGREES = orjson_agrees()


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)  # mtime=0: the same log always gives the same bytes


def _gunzip(data: bytes) -> Any:
    try:
        return json.loads(gzip.decompress(data).decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayFormatError(f"not a gzip-compressed JSON replay: {exc}") from exc


def make_header(
    game: str,
    rules_version: str,
    options: dict[str, Any],
    seed: int,
    clock: dict[str, int],
    seats: Sequence[dict[str, Any]],
    match_id: int | None = None,
) -> dict[str, Any]:
    """seats: one dict per seat in seat order, e.g. {"bot_version": 7, "bot": "greedy", "version": 1, "sha256": ...}."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game,
        "rules_version": rules_version,
        "options": options,
        "seed": seed,
        "players": len(seats),
        "clock": clock,
        "seats": [dict(seat, seat=number) for number, seat in enumerate(seats)],
        "match": match_id,
    }


def with_branch(header: dict[str, Any], branch: dict[str, Any] | None) -> dict[str, Any]:
    """The header of a branch carries its branch point {"parent", "step", "force", "resample"} (docs/branches.md);
    other headers are left as they are, so older replays keep their bytes."""
    return header if branch is None else dict(header, branch=branch)


def make_footer(outcome: dict[str, Any], faults: Sequence[int], forfeited: Sequence[bool]) -> dict[str, Any]:
    return {"outcome": outcome, "faults": list(faults), "forfeited": list(forfeited)}


def encode_actions(actions: Sequence[dict[str, Any]]) -> bytes:
    return _gzip(canonical_json(list(actions)))


def decode_actions(data: bytes) -> list[dict[str, Any]]:
    actions = _gunzip(data)
    if not isinstance(actions, list):
        raise ReplayFormatError("the action log is not a list")
    return actions


def encode_replay(document: dict[str, Any]) -> bytes:
    """The self-contained export file: the whole document, canonical and compressed."""
    check_document(document)
    return _gzip(canonical_json(document))


def decode_replay(data: bytes) -> dict[str, Any]:
    document = _gunzip(data)
    check_document(document)
    assert isinstance(document, dict)
    return document


def check_document(document: Any) -> None:
    """Raise ReplayFormatError naming the first thing that makes document not a replay."""
    if not isinstance(document, dict) or set(document) != {"header", "actions", "footer"}:
        raise ReplayFormatError("a replay has exactly the keys header, actions and footer")
    header = document["header"]
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ReplayFormatError(f"header.format must be {FORMAT!r}")
    if header.get("format_version") != FORMAT_VERSION:
        raise ReplayFormatError(f"unsupported format_version {header.get('format_version')!r}")
    for key in ("game", "rules_version", "options", "seed", "players", "seats"):
        if key not in header:
            raise ReplayFormatError(f"header has no {key!r}")
    branch = header.get("branch")
    if branch is not None and (not isinstance(branch, dict) or set(branch) != set(BRANCH_KEYS)
                               or not isinstance(branch["step"], int) or branch["step"] < 0):
        raise ReplayFormatError(f"header.branch must be an object with exactly {', '.join(BRANCH_KEYS)}")
    if not isinstance(document["actions"], list):
        raise ReplayFormatError("actions must be a list")
    for index, record in enumerate(document["actions"]):
        if not isinstance(record, dict) or "seat" not in record or "choice" not in record:
            raise ReplayFormatError(f"action {index} must be an object with seat and choice")
    if not isinstance(document["footer"], dict) or "outcome" not in document["footer"]:
        raise ReplayFormatError("footer has no outcome")
