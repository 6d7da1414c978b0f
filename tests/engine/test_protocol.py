"""The JSON-lines wire protocol: builders, framing and the strict reply parser
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox)."""

from __future__ import annotations

import io
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from engine import load_game, protocol, sdk
from engine.core import Decision
from engine.protocol import MAX_LINE, ProtocolFault, parse_reply

# (line, expected_seq, n_options, choice)
VALID_REPLIES = [
    ('{"seq":1,"choice":0}', 1, 3, 0),
    ('{"seq":1,"choice":2}', 1, 3, 2),
    ('{"choice":1,"seq":7}', 7, 2, 1),
    ('{"seq": 3, "choice": 0}\n', 3, 1, 0),
    ('  {"seq":3,"choice":0}  \r\n', 3, 1, 0),
    (b'{"seq":12,"choice":4}\n', 12, 5, 4),
]

# (line, expected_seq, n_options, fault code)
INVALID_REPLIES = [
    ("", 1, 3, "bad_json"),
    ("\n", 1, 3, "bad_json"),
    ("hello", 1, 3, "bad_json"),
    ('{"seq":1,"choice":0', 1, 3, "bad_json"),
    ('{"seq":1,"choice":NaN}', 1, 3, "bad_json"),
    ('{"seq":1,"choice":Infinity}', 1, 3, "bad_json"),
    (b'{"seq":1,"choice":0}\xff', 1, 3, "bad_json"),
    ('{"seq":1,"seq":1,"choice":0}', 1, 3, "bad_json"),
    ('{"seq":01,"choice":0}', 1, 3, "bad_json"),
    ('{"seq":1,"choice":00}', 1, 3, "bad_json"),
    ("[1, 0]", 1, 3, "bad_shape"),
    ("1", 1, 3, "bad_shape"),
    ("null", 1, 3, "bad_shape"),
    ('{"seq":1}', 1, 3, "bad_shape"),
    ('{"choice":0}', 1, 3, "bad_shape"),
    ('{"seq":1,"choice":0,"debug":"x"}', 1, 3, "bad_shape"),
    ('{"seq":"1","choice":0}', 1, 3, "bad_shape"),
    ('{"seq":true,"choice":0}', 1, 3, "bad_shape"),
    ('{"seq":1.0,"choice":0}', 1, 3, "bad_shape"),
    ('{"seq":1,"choice":"0"}', 1, 3, "bad_shape"),
    ('{"seq":1,"choice":false}', 1, 3, "bad_shape"),
    ('{"seq":1,"choice":1.5}', 1, 3, "bad_shape"),
    ('{"seq":1,"choice":null}', 1, 3, "bad_shape"),
    ('{"seq":0,"choice":0}', 1, 3, "stale_seq"),
    ('{"seq":2,"choice":0}', 1, 3, "stale_seq"),
    ('{"seq":-1,"choice":0}', 5, 3, "stale_seq"),
    ('{"seq":1,"choice":3}', 1, 3, "out_of_range"),
    ('{"seq":1,"choice":-1}', 1, 3, "out_of_range"),
    ('{"seq":1,"choice":0}', 1, 0, "out_of_range"),
    ('{"seq":1,"choice":99999999999999999999}', 1, 3, "out_of_range"),
    ("x" * (MAX_LINE + 1), 1, 3, "too_long"),
    ('{"seq":1,"choice":0,"pad":"' + "x" * MAX_LINE + '"}', 1, 3, "too_long"),
    ("[" * 100_000, 1, 3, "bad_json"),
]


@pytest.mark.parametrize(("line", "seq", "n", "choice"), VALID_REPLIES)
def test_it_accepts_a_reply_to_the_pending_decision(line: str | bytes, seq: int, n: int, choice: int) -> None:
    assert parse_reply(line, seq, n) == choice


@pytest.mark.parametrize(("line", "seq", "n", "code"), INVALID_REPLIES)
def test_it_rejects_a_bad_reply_with_a_typed_fault(line: str | bytes, seq: int, n: int, code: str) -> None:
    with pytest.raises(ProtocolFault) as caught:
        parse_reply(line, seq, n)
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(code)


@pytest.mark.parametrize(("line", "seq", "n", "expected"),
                         [(line, seq, n, choice) for line, seq, n, choice in VALID_REPLIES]
                         + [(line, seq, n, code) for line, seq, n, code in INVALID_REPLIES])
def test_the_fast_path_for_plain_reply_bytes_agrees_with_the_strict_parser(line: str | bytes, seq: int, n: int,
                                                                           expected: int | str) -> None:
    """The worker reads bytes and matches the SDK's own reply shape first: every case gives the same answer."""
    raw = line.encode() if isinstance(line, str) else line
    if isinstance(expected, int):
        assert parse_reply(raw, seq, n) == expected
        return
    with pytest.raises(ProtocolFault) as caught:
        parse_reply(raw, seq, n)
    assert caught.value.code == expected


def test_it_quotes_the_offending_input_briefly() -> None:
    with pytest.raises(ProtocolFault, match="'not json at all'"):
        parse_reply("not json at all", 1, 2)
    with pytest.raises(ProtocolFault) as caught:
        parse_reply("z" * 10_000, 1, 2)
    assert len(str(caught.value)) < 300


BIG = "x" * (MAX_LINE - 100)


@pytest.mark.parametrize("line", [
    json.dumps({"seq": BIG, "choice": 0}), json.dumps({"seq": 1, "choice": [BIG]}),
    json.dumps({f"k{i}": 0 for i in range(50_000)}), "{" + ",".join(['"seq":1'] * 50_000) + "}",
    json.dumps({"type": "hello", "views": BIG}), json.dumps({"type": "hello", "reuse": BIG}),
    json.dumps({"type": "hello", "history": BIG}),
])
def test_a_faults_detail_quotes_a_bots_value_briefly_whatever_its_size(line: str) -> None:
    """A fault's detail goes into the replay and the version's log: a reply whose seq was a string of a mebibyte put
    a mebibyte there, three times a validation."""
    with pytest.raises(ProtocolFault) as caught:
        parse_reply(line, 1, 2) if '"hello"' not in line else protocol.bot_hello(line)
    assert len(str(caught.value)) < 300, len(str(caught.value))


def test_a_line_of_exactly_max_line_bytes_is_allowed() -> None:
    body = '{"seq":1,"choice":0,"p":"'
    line = body + " " * 0 + "x" * (MAX_LINE - len(body) - 2) + '"}'
    assert len(line) == MAX_LINE
    with pytest.raises(ProtocolFault) as caught:
        parse_reply(line + "\n", 1, 2)
    assert caught.value.code == "bad_shape"  # read and parsed, not cut off as too long


def test_the_messages_have_the_documented_shapes() -> None:
    decision = Decision(seat=1, kind="feed", options=[{"species": 0}, "pass"], prompt="Feed a species")
    clock = {"move_ms": 200, "bank_ms": 500}
    assert protocol.hello("evolution", "1", 1, 3, {"a": 1}, clock) == {
        "type": "hello", "protocol": 2, "game": "evolution", "rules_version": "1", "seat": 1, "players": 3,
        "options": {"a": 1}, "clock": clock,
    }
    assert protocol.decide(4, {"hand": []}, decision, clock) == {
        "type": "decide", "seq": 4, "view": {"hand": []},
        "decision": {"kind": "feed", "options": [{"species": 0}, "pass"], "prompt": "Feed a species"},
        "clock": clock,
    }
    assert protocol.decide(5, {"hand": []}, decision, clock, patch=[{"op": "remove", "path": "/hand"}]) == {
        "type": "decide", "seq": 5, "patch": [{"op": "remove", "path": "/hand"}],
        "decision": {"kind": "feed", "options": [{"species": 0}, "pass"], "prompt": "Feed a species"},
        "clock": clock,
    }
    assert protocol.result({"ranks": [1, 2]}) == {"type": "result", "outcome": {"ranks": [1, 2]}}
    assert protocol.reply(4, 1) == {"seq": 4, "choice": 1}


def test_encode_writes_one_compact_utf8_line() -> None:
    line = protocol.encode({"type": "result", "outcome": {"name": "Évolution", "n": [1, 2]}})
    assert line == '{"type":"result","outcome":{"name":"Évolution","n":[1,2]}}\n'.encode()
    assert line.count(b"\n") == 1


@pytest.mark.parametrize("message", [{"x": float("nan")}, {"x": object()}, {"x": "y" * MAX_LINE}])
def test_encode_refuses_what_is_not_a_json_line(message: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        protocol.encode(message)


def test_a_reply_round_trips_through_encode_and_parse() -> None:
    assert parse_reply(protocol.encode(protocol.reply(9, 2)), 9, 3) == 2


@pytest.mark.parametrize(
    ("line", "ok"),
    [('{"type":"hello"}', True), ('{"type":"future","x":1}', True), ('{"seq":1}', False), ('{"type":3}', False),
     ("[]", False), ("nope", False)],
)
def test_parse_message_wants_an_object_with_a_type(line: str, ok: bool) -> None:
    if ok:
        assert protocol.parse_message(line)["type"]
    else:
        with pytest.raises(ProtocolFault):
            protocol.parse_message(line)


def _lines(*messages: dict[str, object]) -> io.BytesIO:
    return io.BytesIO(b"".join(protocol.encode(m) for m in messages))


def test_the_sdk_answers_decides_and_stops_at_result() -> None:
    clock = {"move_ms": 100, "bank_ms": 1000}
    decision = Decision(seat=0, kind="pick", options=["a", "b", "c"])
    stdin = _lines(
        protocol.hello("evolution", "1", 0, 2, {}, clock),
        {"type": "news", "text": "ignored"},
        protocol.decide(1, {"turn": 1}, decision, clock),
        protocol.decide(2, {"turn": 2}, decision, clock),
        protocol.result({"ranks": [1, 2]}),
        protocol.decide(3, {"turn": 3}, decision, clock),
    )
    stdout = io.BytesIO()
    seen: list[object] = []

    def act(view: dict[str, object], decision: dict[str, object]) -> int:
        seen.append(view["turn"])
        return len(decision["options"]) - 1  # type: ignore[arg-type]

    bot = sdk.run(act, stdin=stdin, stdout=stdout)
    hello, *replies = stdout.getvalue().decode().splitlines()
    assert json.loads(hello) == {"type": "hello", "views": "patch", "reuse": True} == protocol.bot_hello(hello)
    assert [json.loads(r) for r in replies] == [{"seq": 1, "choice": 2}, {"seq": 2, "choice": 2}]
    assert seen == [1, 2]
    assert bot.seat == 0 and bot.outcome == {"ranks": [1, 2]} and bot.clock == clock
    assert all(parse_reply(r, i + 1, 3) == 2 for i, r in enumerate(replies))


@pytest.mark.parametrize("choice", [1, True, 1.0, "1", None, 2**70])
def test_the_sdk_writes_what_act_returns_as_json_writes_it(choice: object) -> None:
    """The reply is written without an encoder for an int; anything else (a bool, a float) goes out as JSON spells
    it, so that the engine sees what the bot returned and faults it, never a silently converted 1."""
    clock = {"move_ms": 100, "bank_ms": 1000}
    stdin = _lines(protocol.decide(7, {"turn": 1}, Decision(seat=0, kind="pick", options=["a", "b"]), clock))
    stdout = io.BytesIO()
    sdk.run(lambda view, decision: choice, stdin=stdin, stdout=stdout)  # type: ignore[arg-type,return-value]
    assert stdout.getvalue() == json.dumps({"seq": 7, "choice": choice}, separators=(",", ":")).encode() + b"\n"


def test_the_sdk_stops_at_end_of_input() -> None:
    bot = sdk.run(lambda view, decision: 0, stdin=io.BytesIO(b""), stdout=io.BytesIO())
    assert bot.outcome is None


# --- protocol 2: views as JSON Patch -----------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab/~", max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("ab/~", max_size=3), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES, JSON_VALUES)
def test_a_view_patch_turns_the_old_view_into_the_new(old: object, new: object) -> None:
    patch = protocol.view_patch(old, new)
    sent = json.loads(protocol.encode({"patch": patch}))["patch"]  # what the bot reads
    rebuilt = sdk.apply_patch(json.loads(json.dumps(old)), sent)
    assert json.dumps(rebuilt) == json.dumps(new)  # members in new's order too: a bot may read them in order
    assert (patch == []) == (old == new)


@given(JSON_VALUES, JSON_VALUES)
def test_a_patched_copy_is_the_patched_view_and_leaves_the_old_one_alone(old: object, new: object) -> None:
    patch = json.loads(protocol.encode({"patch": protocol.view_patch(old, new)}))["patch"]
    before = json.loads(json.dumps(old))
    kept = json.dumps(before)
    copied = sdk.patched_copy(before, patch)
    assert json.dumps(copied) == json.dumps(new)
    assert json.dumps(before) == kept  # the view act had is untouched
    assert json.dumps(patch) == json.dumps(json.loads(protocol.encode({"patch": protocol.view_patch(old, new)}))[
        "patch"])  # and so is the patch (the SDK's own view takes its values)


@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_every_seat_rebuilds_every_view_of_a_whole_game_from_patches(game: str) -> None:
    state = load_game(game).new_state(3, 11, None)
    rng = random.Random(11)
    sent: dict[int, object] = {}  # the engine's last view per seat
    rebuilt: dict[int, object] = {}  # the bot's
    sizes = []
    while (decision := state.decision()) is not None:
        view = state.view(decision.seat)
        seat = decision.seat
        if seat in sent:
            line = protocol.encode({"patch": protocol.view_patch(sent[seat], view)})
            rebuilt[seat] = sdk.apply_patch(rebuilt[seat], json.loads(line)["patch"])
            sizes.append(len(line) / len(protocol.encode({"view": view})))
        else:
            rebuilt[seat] = json.loads(protocol.encode(view))
        sent[seat] = view
        assert rebuilt[seat] == view
        state.choose(rng.randrange(len(decision.options)))
    assert sorted(sizes)[len(sizes) // 2] < 0.5  # a patch is much smaller than its view


@pytest.mark.parametrize(("game", "players", "max_ops"), [
    ("evolution", 2, 64), ("evolution", 4, 64), ("evolution", 6, 64), ("evolution", 4, 3), ("marine", 2, 64),
    ("marine", 3, 64), ("marine", 4, 3)])
def test_a_games_own_patches_rebuild_every_seats_view_byte_for_byte(game: str, players: int, max_ops: int) -> None:
    """State.seat_patch (made from what changed: Evolution's value by value, Marine's tile by tile): at every decision
    of a whole game the view it gives is state.view(seat), and its patch, applied as a bot applies it, turns the
    view sent last into exactly that, key order included; a patch over max_ops operations is not sent (None)."""
    state = load_game(game).new_state(players, players, None)
    rng = random.Random(players)
    sent: dict[int, object] = {}
    rebuilt: dict[int, object] = {}
    whole = 0
    while (decision := state.decision()) is not None:
        seat, view = decision.seat, json.dumps(state.view(decision.seat))
        made, patch, sent[seat] = state.seat_patch(seat, sent.get(seat), max_ops)
        assert json.dumps(made) == view
        if patch is None:
            whole += seat in rebuilt
            rebuilt[seat] = json.loads(view)
        else:
            assert len(patch) <= max_ops
            rebuilt[seat] = sdk.apply_patch(rebuilt[seat], json.loads(protocol.encode({"patch": patch}))["patch"])
        assert json.dumps(rebuilt[seat]) == view
        state.choose(rng.randrange(len(decision.options)))
    if max_ops < 64:
        assert whole  # the small bound sends whole views now and then


def _decide_streams(game: str, players: int, seed: int, version: int) -> tuple[list[bytes], list[list[str]]]:
    """Every seat's input for a whole random game as the engine writes it (patches from protocol 2 on, else whole
    views), and the views each seat must see, spelled strictly (1, 1.0 and true apart, members in the engine's
    order: a bot may read an object's members in order, as Marine's display of action spaces)."""
    state = load_game(game).new_state(players, seed, None)
    clock = {"move_ms": 100, "bank_ms": 1000}
    rng = random.Random(seed)
    hello = {**protocol.hello(game, "1", 0, players, {}, clock), "protocol": version}
    lines = [[protocol.encode({**hello, "seat": seat})] for seat in range(players)]
    expected: list[list[str]] = [[] for _ in range(players)]
    sent: dict[int, object] = {}
    while (decision := state.decision()) is not None:
        seat, view = decision.seat, state.view(decision.seat)
        patch = None
        if version >= 2:  # as a sandboxed seat makes them: the game's own patches (State.seat_patch)
            made, patch, sent[seat] = state.seat_patch(seat, sent.get(seat), 64)
            assert json.dumps(made) == json.dumps(view)
        lines[seat].append(protocol.encode(protocol.decide(len(expected[seat]) + 1, view, decision, clock, patch)))
        expected[seat].append(json.dumps(view))
        state.choose(rng.randrange(len(decision.options)))
    return [b"".join(seat_lines) for seat_lines in lines], expected


@settings(max_examples=examples(6))
@given(game=st.sampled_from(["evolution", "marine"]), players=st.integers(2, 4), seed=st.integers(0, 2**31 - 1),
       version=st.sampled_from([1, 2]))
def test_at_every_step_of_a_random_game_act_sees_the_engines_view(game: str, players: int, seed: int,
                                                                    version: int) -> None:
    """Protocol 1 sends whole views, protocol 2 patches; either way act gets exactly the view the engine built, at
    every decision of every seat, whether it writes over every view it gets (a careless bot) or keeps them all
    (and those stay as they were)."""
    streams, expected = _decide_streams(game, players, seed, version)
    for stream, views in zip(streams, expected, strict=True):
        for bot in (_Watcher(scribbles=False), _Watcher(scribbles=True), _Watcher(scribbles=True, every=2)):
            stdout = io.BytesIO()
            sdk.run(bot.act, stdin=io.BytesIO(stream), stdout=stdout)
            assert bot.seen == views
            if not bot.scribbles:
                assert [json.dumps(view) for view in bot.kept] == views
            assert stdout.getvalue().startswith(b'{"type":"hello"') == (version >= 2)


class _Watcher:
    """A bot that notes every view it gets; it keeps them all, or writes over each (a careless bot), or over every
    other one (so that the SDK's two ways to the next view, a patched copy of an unchanged view and a whole copy of
    a changed one, alternate)."""

    def __init__(self, scribbles: bool, every: int = 1) -> None:
        self.scribbles, self.every = scribbles, every
        self.seen: list[str] = []
        self.kept: list[dict[str, object]] = []

    def act(self, view: dict[str, object], decision: dict[str, object]) -> int:
        self.seen.append(json.dumps(view))
        self.kept.append(view)
        if self.scribbles and len(self.seen) % self.every == 0:
            for value in view.values():
                if isinstance(value, list):
                    value.append("scribbled")
            view["decision"] = None
        return 0


def test_the_sdk_rebuilds_views_from_patches_and_gives_act_its_own_copy() -> None:
    clock = {"move_ms": 100, "bank_ms": 1000}
    decision = Decision(seat=0, kind="pick", options=["a", "b"])
    first, second = {"turn": 1, "hand": ["x", "y"]}, {"turn": 2, "hand": ["x", "y", "z"]}
    stdin = _lines(
        protocol.hello("evolution", "1", 0, 2, {}, clock),
        protocol.decide(1, first, decision, clock),
        protocol.decide(2, None, decision, clock, patch=protocol.view_patch(first, second)),
    )
    seen: list[object] = []

    def act(view: dict[str, object], decision: dict[str, object]) -> int:
        seen.append(json.loads(json.dumps(view)))
        view["hand"] = []  # the bot changes its view: the next patch must still apply to the SDK's own
        return 0

    sdk.run(act, stdin=stdin, stdout=io.BytesIO())
    assert seen == [first, second]


@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_a_bot_that_keeps_or_changes_its_views_sees_every_view_of_a_whole_game(game: str) -> None:
    """Hostile to the SDK's copy-on-patch: one bot keeps every view it gets, another changes deep parts of some.
    Each must see exactly the engine's views, and the kept ones must stay as they were."""
    state = load_game(game).new_state(3, 5, None)
    clock = {"move_ms": 100, "bank_ms": 1000}
    rng = random.Random(5)
    sent: dict[int, object] = {}
    messages: dict[int, list[dict[str, object]]] = {seat: [protocol.hello(game, "1", seat, 3, {}, clock)]
                                                      for seat in range(3)}
    expected: dict[int, list[str]] = {seat: [] for seat in range(3)}
    while (decision := state.decision()) is not None:
        seat, view = decision.seat, state.view(decision.seat)
        patch = protocol.view_patch(sent[seat], view) if seat in sent else None
        messages[seat].append(json.loads(protocol.encode(protocol.decide(len(expected[seat]) + 1, view, decision,
                                                                         clock, patch))))
        expected[seat].append(json.dumps(view))
        sent[seat] = view
        state.choose(rng.randrange(len(decision.options)))

    class Bot:
        def __init__(self, changes: bool) -> None:
            self.changes, self.seen, self.kept = changes, [], []  # type: ignore[var-annotated]

        def act(self, view: dict[str, object], decision: dict[str, object]) -> int:
            self.seen.append(json.dumps(view))
            self.kept.append(view)
            if self.changes and len(self.seen) % 3 == 0:
                for value in view.values():  # changes inside nested lists and objects, then the top level
                    if isinstance(value, list) and value and isinstance(value[0], dict):
                        value[0]["vandal"] = True
                        value.append({"vandal": 1})
                view["vandal"] = len(self.seen)
            return 0

    for seat in range(3):
        for bot in (Bot(changes=False), Bot(changes=True)):
            sdk.run(bot.act, stdin=_lines(*messages[seat]), stdout=io.BytesIO())
            assert bot.seen == expected[seat]
            if not bot.changes:
                assert [json.dumps(view) for view in bot.kept] == expected[seat]


@pytest.mark.parametrize(("line", "views", "reuse"), [
    ('{"type":"hello","views":"patch"}', "patch", False),
    ('{"type": "hello", "views": "full", "reuse": true}', "full", True),
    ('{"type":"hello"}', "full", False),
])
def test_a_bot_hello_names_the_views_it_wants(line: str, views: str, reuse: bool) -> None:
    assert protocol.bot_hello(line) == {"type": "hello", "views": views, "reuse": reuse}


@pytest.mark.parametrize("line", ['{"seq":1,"choice":0}', '{"seq":1,"choice":"hello"}', "not json hello"])
def test_a_reply_is_no_bot_hello(line: str) -> None:
    assert protocol.bot_hello(line) is None


@pytest.mark.parametrize(("line", "error"), [
    ('{"type":"hello","views":"diff"}', "a bot's hello asks for views full or patch, got 'diff'"),
    ('{"type":"hello","reuse":"yes"}', "a bot's hello says reuse true or false, got 'yes'"),
])
def test_a_bot_hello_asking_for_something_else_is_a_fault(line: str, error: str) -> None:
    with pytest.raises(ProtocolFault, match=f"bad_shape: {error}"):
        protocol.bot_hello(line)


def test_the_sdk_plays_on_after_a_result_when_the_engine_offers_reuse() -> None:
    clock = {"move_ms": 100, "bank_ms": 1000}
    decision = Decision(seat=0, kind="pick", options=["a", "b"])
    warm = {**protocol.hello("evolution", "1", 0, 2, {}, clock), "reuse": True}
    stdin = _lines(warm, protocol.decide(1, {"n": 1}, decision, clock), protocol.result({"ranks": [1, 2]}),
                   {**warm, "seat": 1}, protocol.decide(1, {"n": 2}, decision, clock),
                   protocol.result({"ranks": [2, 1]}))
    seen: list[object] = []
    bot = sdk.run(lambda view, decision: seen.append(view) or 0, stdin=stdin, stdout=io.BytesIO())
    assert seen == [{"n": 1}, {"n": 2}]  # the second match's first view is whole, not patched onto the first's
    assert bot.seat == 1 and bot.outcome == {"ranks": [2, 1]}


# --- version 3: a seat's history ----------------------------------------------------------------------------------


def test_an_engine_that_offers_history_says_protocol_3_and_one_that_does_not_speaks_version_2() -> None:
    clock = {"move_ms": 200, "bank_ms": 500}
    assert protocol.hello("evolution", "1", 1, 3, {}, clock, history=True)["protocol"] == 3
    assert protocol.hello("evolution", "1", 1, 3, {}, clock)["protocol"] == 2


def test_a_version_3_decide_carries_the_events_and_the_context_it_is_given() -> None:
    decision = Decision(seat=0, kind="pick", options=["a", "b"])
    clock = {"move_ms": 200, "bank_ms": 500}
    events = [{"event": "draw", "seat": 1, "count": 2}]
    message = protocol.decide(3, {}, decision, clock, None, events, {"stack": []})
    assert message["events"] == events and message["context"] == {"stack": []}
    assert message["events"] is not events  # the caller may go on appending to its own list
    assert "events" not in protocol.decide(3, {}, decision, clock) and "context" not in protocol.decide(3, {}, decision,
                                                                                                          clock)


@pytest.mark.parametrize(("line", "expected"), [
    ('{"type":"hello","views":"patch","history":true}', {"type": "hello", "views": "patch", "reuse": False,
                                                         "history": True}),
    ('{"type":"hello","views":"patch","history":false}', {"type": "hello", "views": "patch", "reuse": False}),
])
def test_a_bot_hello_may_ask_for_its_history(line: str, expected: dict[str, object]) -> None:
    assert protocol.bot_hello(line) == expected


def test_a_bot_hello_that_asks_for_history_with_anything_but_true_or_false_is_a_bad_shape() -> None:
    with pytest.raises(ProtocolFault) as caught:
        protocol.bot_hello('{"type":"hello","history":"yes"}')
    assert caught.value.code == "bad_shape"
    assert str(caught.value) == "bad_shape: a bot's hello says history true or false, got 'yes'"


def test_a_discard_pile_that_grew_goes_out_as_adds_and_one_that_shrank_whole() -> None:
    """The pile's new cards go out as adds while the same list only grew; a pile that is shorter is compared whole,
    so the seat's view stays the engine's."""
    state = load_game("evolution").new_state(3, 5, None)
    sent = None
    _, _, sent = state.seat_patch(0, sent, 64)
    state.discard += [3, 4, 5]
    view, patch, sent = state.seat_patch(0, sent, 64)
    assert patch is not None and [op["op"] for op in patch if op["path"].startswith("/discard")] == ["add"] * 3
    state.discard.pop()
    view, patch, sent = state.seat_patch(0, sent, 64)
    assert json.dumps(view) == json.dumps(state.view(0))
