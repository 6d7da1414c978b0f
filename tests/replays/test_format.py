"""The replay format is canonical gzip'd JSON: round-trips, is byte-stable, and rejects what is not a replay."""

from __future__ import annotations

import gzip
from typing import Any

import pytest

from replays.format import (
    FORMAT_VERSION,
    ReplayFormatError,
    decode_actions,
    decode_replay,
    encode_actions,
    encode_replay,
    make_footer,
    make_header,
)


def document() -> dict[str, Any]:
    header = make_header("tinynim", "1", {"pile": 12, "max_take": 3}, 5, {"move_ms": 1000, "bank_ms": 10000},
                         [{"bot_version": 1, "bot": "greedy"}, {"bot_version": 2, "bot": "random"}], match_id=9)
    actions = [{"seat": 0, "choice": 2, "ms": 1}, {"seat": 1, "choice": 0, "ms": 3, "fault": "timeout"}]
    footer = make_footer({"scores": [3, 1], "ranks": [1, 2], "tiebreaks": [[], []], "termination": "normal"},
                         [0, 1], [False, False])
    return {"header": header, "actions": actions, "footer": footer}


def test_it_round_trips_a_document() -> None:
    assert decode_replay(encode_replay(document())) == document()


def test_it_gives_the_same_bytes_for_the_same_document() -> None:
    assert encode_replay(document()) == encode_replay(document())
    assert encode_actions(document()["actions"]) == encode_actions(list(document()["actions"]))


def test_it_round_trips_an_action_log() -> None:
    assert decode_actions(encode_actions(document()["actions"])) == document()["actions"]


def test_the_header_names_the_format_and_the_seats() -> None:
    header = document()["header"]
    assert header["format"] == "ludus-replay" and header["format_version"] == FORMAT_VERSION
    assert [seat["seat"] for seat in header["seats"]] == [0, 1] and header["players"] == 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not gzip", "not a gzip-compressed JSON replay"),
        (gzip.compress(b"[1, 2]", mtime=0), "exactly the keys"),
        (gzip.compress(b'{"header": {}, "actions": [], "footer": {}}', mtime=0), "header.format"),
    ],
)
def test_it_rejects_bytes_that_are_not_a_replay(data: bytes, message: str) -> None:
    with pytest.raises(ReplayFormatError, match=message):
        decode_replay(data)


def test_it_rejects_an_action_without_a_choice() -> None:
    bad = document()
    bad["actions"][1] = {"seat": 1}
    with pytest.raises(ReplayFormatError, match="action 1"):
        encode_replay(bad)
