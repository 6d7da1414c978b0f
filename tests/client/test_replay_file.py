"""The client writes the replay export file with its own copy of the encoder (it imports nothing of the server);
replays/format.py is the source of truth, and these keep the two byte for byte equal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from ludus_client.replay_file import encode_replay as client_encode
from replays.format import decode_replay, encode_replay, make_footer, make_header

STORED = Path(__file__).resolve().parents[1] / "replays" / "data"


@pytest.mark.parametrize("path", sorted(STORED.glob("*.json")), ids=lambda path: path.name)
def test_a_stored_replay_gives_the_servers_bytes(path: Path) -> None:
    document = json.loads(path.read_text())
    assert client_encode(document) == encode_replay(document)
    assert decode_replay(client_encode(document)) == document


scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                            max_size=4), max_leaves=20)


@settings(max_examples=examples(200))
@given(options=st.dictionaries(st.text(max_size=6), values, max_size=4), seed=st.integers(0, 2**63 - 1),
       actions=st.lists(st.fixed_dictionaries({"seat": st.integers(0, 5), "choice": values, "ms": st.integers(0)}),
                        max_size=6),
       outcome=st.dictionaries(st.text(max_size=6), values, max_size=3))
def test_any_document_gives_the_servers_bytes(options: dict[str, Any], seed: int, actions: list[dict[str, Any]],
                                              outcome: dict[str, Any]) -> None:
    header = make_header("evolution", "1", options, seed, {"move_ms": 1000, "bank_ms": 10000},
                         [{"bot_version": 1, "bot": "greedy"}, {"bot_version": 2, "bot": "hungry é😀"}], match_id=3)
    document = {"header": header, "actions": actions, "footer": make_footer(outcome, [0, 1], [False, True])}
    assert client_encode(document) == encode_replay(document)
