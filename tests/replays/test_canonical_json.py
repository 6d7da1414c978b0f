"""canonical_json writes exactly the bytes of the standard library's json.dumps (sorted keys, no spaces, UTF-8),
so every stored replay's digest still verifies: for any value, and for every event of real games of both engines.
"""

from __future__ import annotations

import collections
import enum
import json
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from engine import load_game
from engine.bots import make_bot
from replays import format as replay_format
from replays.format import canonical_json, orjson_agrees
from replays.verify import verify_document

DATA = Path(__file__).parent / "data"


def stdlib(value: Any) -> bytes | type[BaseException]:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except Exception as exc:  # the same error type, or the same bytes
        return type(exc)


def ours(value: Any) -> bytes | type[BaseException]:
    try:
        return canonical_json(value)
    except Exception as exc:
        return type(exc)


class Colour(enum.IntEnum):
    RED = 1


class Name(enum.StrEnum):
    ALICE = "alice"


class Plain(enum.Enum):
    ONE = 1


class Tricky(int):
    def __repr__(self) -> str:
        return "not a number"


NASTY: list[Any] = [
    1e16, 1e-7, 1.5, -0.0, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, float("nan"), float("inf"), float("-inf"),
    2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**40,
    "\x00\x01\x1f\x7f\u2028\u2029\"\\/\b\f\n\r\t", "\ud800", "é😀", "null", "1.5e3", None, True, False,
    {"\uffff": 1, "\U0001f600": 2, "a": 3, "B": 4, "": 5}, {1: "int key"}, {None: 1, True: 2, 1.5: 3},
    {1: "a", "b": 2}, collections.OrderedDict([("b", 1), ("a", 2)]), (1, (2, "three")), [[[[]]]],
    Colour.RED, Name.ALICE, Tricky(7), {Name.ALICE: 1}, {"k": {"z": [1, {"y": None, "x": 2.5}]}},
    set(), b"bytes", object(),
    # orjson writes these natively; json.dumps refuses them
    uuid.UUID(int=7), Plain.ONE, orjson.Fragment(b"[1]"), {"k": [uuid.UUID(int=1)]}, [Plain.ONE],
]


@pytest.mark.parametrize("value", NASTY, ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(NASTY)])  # no addresses
def test_it_writes_what_the_standard_library_writes_for_awkward_values(value: Any) -> None:
    assert ours(value) == stdlib(value)


def test_the_import_time_probe_finds_orjson_agreeing_and_turns_it_off_when_it_does_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert orjson_agrees() and replay_format._ORJSON_AGREES

    def refusing(value: Any, option: int) -> bytes:
        raise orjson.JSONEncodeError("refused")

    def spaced(value: Any, option: int) -> bytes:  # as if a release escaped U+2028 (as json.dumps(ensure_ascii) does)
        return orjson.dumps(value, option=option).replace("\u2028".encode(), b"\\u2028")

    def unsorted(value: Any, option: int) -> bytes:  # as if a release sorted keys by UTF-16 code units
        return orjson.dumps(value, option=option & ~orjson.OPT_SORT_KEYS)

    assert not orjson_agrees(refusing) and not orjson_agrees(spaced) and not orjson_agrees(unsorted)
    monkeypatch.setattr(replay_format, "_ORJSON_AGREES", False)
    monkeypatch.setattr(orjson, "dumps", spaced)  # never called once the probe said no
    assert canonical_json({"b": "\u2028", "a": 1}) == stdlib({"b": "\u2028", "a": 1})


def test_it_writes_what_the_standard_library_writes_for_deep_nesting() -> None:
    value: Any = 0
    for _ in range(300):  # orjson refuses more than 255 levels
        value = [value]
    assert ours(value) == stdlib(value)


keys = st.text(max_size=6)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4)
                      | st.dictionaries(st.integers() | st.booleans() | st.none(), inner, max_size=2), max_leaves=25)


@settings(max_examples=examples(500))
@given(values)
def test_it_writes_what_the_standard_library_writes_for_any_value(value: Any) -> None:
    assert ours(value) == stdlib(value)


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_event_of_a_real_game_has_the_standard_librarys_bytes(game_name: str, seed: int) -> None:
    game = load_game(game_name)
    options = game.validate_options({})
    bots = [make_bot("greedy", game_name, seed * 10 + seat) for seat in range(3)]
    state = game.new_state(3, seed, options)
    written = 0
    while (decision := state.decision()) is not None:
        bot = bots[decision.seat]
        events = state.choose(bot.act(state.view(decision.seat) if bot.needs_view else None, decision))
        assert ours(events) == stdlib(events)
        written += 1
    assert ours(state.view(None)) == stdlib(state.view(None))
    assert written > 50


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json")), ids=lambda path: path.name)
def test_stored_replays_still_verify_with_their_digests(path: Path) -> None:
    document = json.loads(path.read_text())
    digest = document["footer"].get("digest")
    assert digest, f"{path.name} has no digest to check"
    assert verify_document(document)["digest"] == digest
