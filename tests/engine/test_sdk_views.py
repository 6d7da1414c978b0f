"""How the SDK reads its lines and builds act's views from patches (engine/sdk.py): whatever the patch (any RFC 6902
add, remove and replace, in any order, on objects whose keys are digits or need escaping), act's new view is the
engine's, shares no container with the SDK's own view, and act's last view is left as it was; a line is read as
json.loads reads it."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine import protocol, sdk
from engine.core import Decision

SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.text("ab", max_size=2)
KEYS = st.text("a03~/", max_size=2)  # "3" and "03" are an object's keys here, not list indices
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                    max_leaves=10)
CLOCK = {"move_ms": 100, "bank_ms": 1000}
DECISION = Decision(seat=0, kind="pick", options=["a", "b"])


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _containers(doc: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every container in doc, with its path."""
    yield path, doc
    for key, value in doc.items() if type(doc) is dict else enumerate(doc):
        if type(value) is dict or type(value) is list:
            yield from _containers(value, f"{path}/{_escape(str(key))}")


@st.composite
def patched(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A view and a patch of up to 8 operations, each on a container the operations before it left (so that adds,
    removes and replaces land in what the patch itself added, and list indices shift under later operations)."""
    view = draw(st.dictionaries(KEYS, JSON, max_size=4))
    now: Any = json.loads(json.dumps(view))
    ops: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 8))):
        path, target = draw(st.sampled_from(list(_containers(now))))
        kind = draw(st.sampled_from(["add", "replace", "remove"] if target else ["add"]))
        if type(target) is dict:
            last = _escape(draw(KEYS) if kind == "add" else draw(st.sampled_from(sorted(target))))
        elif kind == "add":
            index = draw(st.integers(0, len(target)))
            last = "-" if index == len(target) and draw(st.booleans()) else str(index)
        else:
            last = str(draw(st.integers(0, len(target) - 1)))
        op: dict[str, Any] = {"op": kind, "path": f"{path}/{last}"}
        if kind != "remove":
            op["value"] = draw(JSON)
        if draw(st.integers(0, 15)) == 0:  # now and then the whole view
            op = {"op": "replace", "path": "", "value": draw(st.dictionaries(KEYS, JSON, max_size=3))}
        ops.append(op)
        now = sdk.apply_patch(now, [json.loads(json.dumps(op))])
    return view, ops


def _ids(doc: Any) -> set[int]:
    return {id(container) for _, container in _containers(doc)}


@given(patched())
@example(({"x": {"03": {}, "3": {}}}, [{"op": "add", "path": "/x/03/a", "value": 1},  # one parent read as digits,
                                       {"op": "add", "path": "/x/3/b", "value": 2}]))  # the next as the key it is
def test_a_patch_pair_is_the_patched_view_twice_and_leaves_what_act_kept_alone(case: tuple[Any, Any]) -> None:
    """Whatever act kept of its last view (nothing, all of it, any one container) is left as it was; what it did not
    keep may be patched in place."""
    view, ops = case
    expected = json.dumps(sdk.apply_patch(json.loads(json.dumps(view)), json.loads(json.dumps(ops))))
    for keep in range(-1, len(list(_containers(view)))):
        mine = json.loads(json.dumps(view))
        last = sdk._copy(mine)  # act's last view, equal to the SDK's; this variable is the SDK's own
        kept_by_act = [] if keep < 0 else [list(_containers(last))[keep][1]]
        was = json.dumps(kept_by_act)
        new_view, new_given = sdk._patch_pair(mine, last, json.loads(json.dumps(ops)))
        del last
        assert json.dumps(new_view) == expected == json.dumps(new_given)  # 1 and true apart
        assert json.dumps(kept_by_act) == was
        assert not _ids(new_view) & _ids(new_given)  # act can change all of its view and never the SDK's


PATCH = [{"op": "replace", "path": "/a/b/1/c", "value": 5}, {"op": "add", "path": "/d/-", "value": {"e": 6}}]
PATCHED = '{"a": {"b": [1, {"c": 5}]}, "d": [3, {"e": 6}]}'


def test_a_view_act_did_not_keep_is_patched_in_place() -> None:
    """Where references are counted as the sandbox's CPython counts them, act's last view that only the SDK holds is
    patched rather than copied (the copy would be waste: act cannot see the old one); elsewhere it is copied."""
    view = {"a": {"b": [1, {"c": 2}]}, "d": [3]}
    last = sdk._copy(view)
    inner = id(last["a"]["b"])
    mine, given = sdk._patch_pair(view, last, PATCH)
    assert (given is last and id(given["a"]["b"]) == inner) is sdk._REFCOUNTS
    assert json.dumps(given) == json.dumps(mine) == PATCHED
    assert not _ids(mine) & _ids(given)


def test_where_references_are_not_counted_every_container_on_a_patchs_path_is_copied(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Other interpreters (3.13 on, free-threaded builds, PyPy): every container reads as held by act."""
    monkeypatch.setattr(sdk, "_getrefcount", sdk._always_shared)
    monkeypatch.setattr(sdk, "_ALONE", 0)
    view = {"a": {"b": [1, {"c": 2}]}, "d": [3]}
    last = sdk._copy(view)
    before = json.dumps(last)
    inner, tail = last["a"]["b"], last["d"]
    mine, given = sdk._patch_pair(view, last, PATCH)
    assert given is not last and json.dumps(last) == before
    assert given["a"]["b"] is not inner and given["d"] is not tail
    assert json.dumps(given) == json.dumps(mine) == PATCHED


@given(patched())
def test_act_sees_every_patched_view_whether_it_keeps_or_changes_them(case: tuple[Any, Any]) -> None:
    """The patch is split in two decides: the second is applied to a view act kept (all of it, a part, nothing) or
    changed."""
    view, ops = case
    half = len(ops) // 2
    second = json.loads(json.dumps(sdk.apply_patch(json.loads(json.dumps(view)), json.loads(json.dumps(ops[:half])))))
    expected = [json.dumps(view), json.dumps(second),
                json.dumps(sdk.apply_patch(second, json.loads(json.dumps(ops[half:]))))]
    lines = [protocol.hello("evolution", "1", 0, 2, {}, CLOCK), protocol.decide(1, view, DECISION, CLOCK),
             protocol.decide(2, None, DECISION, CLOCK, patch=ops[:half]),
             protocol.decide(3, None, DECISION, CLOCK, patch=ops[half:])]
    stdin = b"".join(protocol.encode(line) for line in lines)
    for changes in (False, True):
        for keeps in ("all", "part", "nothing"):
            seen, kept = _play(stdin, changes, keeps)
            assert seen == expected
            if not changes:  # what it kept is as it was when it saw it
                assert [json.dumps(part) for part in kept] == [json.dumps(part) for _, part in _parts_kept(
                    [json.loads(view) for view in expected], keeps)]


def _parts_kept(views: list[Any], keeps: str) -> list[tuple[int, Any]]:
    """What a bot that keeps views keeps of each: all of it, its deepest last container, or nothing."""
    if keeps == "nothing":
        return []
    return [(n, view if keeps == "all" else list(_containers(view))[-1][1]) for n, view in enumerate(views)]


def _play(stdin: bytes, changes: bool, keeps: str = "all") -> tuple[list[str], list[Any]]:
    """The views a bot saw (as it saw them) and what it kept of them, a bot that changes all of every view or one
    that does not."""
    seen: list[str] = []
    kept: list[Any] = []

    def act(given: dict[str, Any], decision: dict[str, Any]) -> int:
        seen.append(json.dumps(given))
        kept.extend(part for _, part in _parts_kept([given], keeps))
        if changes:  # deep in the view, then at its top
            for _, container in list(_containers(given)):
                container.append("x") if type(container) is list else container.update(x=1)
            given.clear()
        return 0

    sdk.run(act, stdin=io.BytesIO(stdin), stdout=io.BytesIO())
    return seen, kept


DECIDE = protocol.encode(protocol.decide(1, {"n": 1}, DECISION, CLOCK)).rstrip(b"\n")


@pytest.mark.parametrize("line", [DECIDE + b"\n", b" " + DECIDE + b"\n", DECIDE + b" \r\n", DECIDE])
def test_a_line_is_read_as_json_loads_reads_it(line: bytes) -> None:
    """The engine's lines are one JSON value and a newline, which the SDK scans alone; any other line is read by
    json.loads itself (whitespace around, the last line without its newline)."""
    stdout = io.BytesIO()
    sdk.run(lambda view, decision: 0, stdin=io.BytesIO(line), stdout=stdout)
    assert stdout.getvalue() == b'{"seq":1,"choice":0}\n'


@pytest.mark.parametrize("line", [DECIDE + b"x\n", DECIDE + b" 1\n", DECIDE + DECIDE + b"\n", b"\n", b"{\n"])
def test_a_line_that_json_loads_refuses_ends_the_bot(line: bytes) -> None:
    with pytest.raises(json.JSONDecodeError):
        sdk.run(lambda view, decision: 0, stdin=io.BytesIO(line), stdout=io.BytesIO())
