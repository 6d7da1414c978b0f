"""Verification re-simulates the action log: a true replay verifies; any tampering is named in the error."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.core import Outcome
from replays.frames import frames
from replays.verify import ReplayMismatch, verify_document
from workers.play import forfeit_last, play_game
from workers.seats import InProcessSeat

pytestmark = pytest.mark.usefixtures("tinynim")


def played(game: str = "tinynim", players: int = 3, seed: int = 4) -> dict[str, Any]:
    """A replay document straight from the match loop (no database)."""
    from engine import load_game

    spec = load_game(game)
    options = spec.validate_options({})
    result = play_game(game, players, seed, options, [InProcessSeat("random", game, s) for s in range(players)])
    assert result.outcome is not None
    header = {"format": "ludus-replay", "format_version": 1, "game": game, "rules_version": spec.rules_version,
              "options": options, "seed": seed, "players": players, "seats": [{}] * players}
    footer = {"outcome": result.outcome.to_dict(), "faults": result.faults, "forfeited": result.forfeited}
    return {"header": header, "actions": result.actions, "footer": footer}


def test_it_verifies_a_true_replay() -> None:
    document = played()
    verified = verify_document(document)
    assert verified == dict(document["footer"]["outcome"], digest=verified["digest"])
    assert verify_document(document)["digest"] == verified["digest"]  # deterministic


def test_it_names_events_or_a_final_position_that_differ_from_the_digest() -> None:
    document = played()
    document["footer"]["digest"] = verify_document(document)["digest"]
    verify_document(document)
    document["footer"]["digest"] = "0" * 64
    with pytest.raises(ReplayMismatch, match="differ from the recorded digest"):
        verify_document(document)


def test_it_names_a_changed_outcome() -> None:
    document = played()
    document["footer"]["outcome"]["scores"][0] += 1
    with pytest.raises(ReplayMismatch, match="outcome scores differs"):
        verify_document(document)


def test_it_names_a_choice_out_of_range() -> None:
    document = played()
    document["actions"][0]["choice"] = 99
    with pytest.raises(ReplayMismatch, match="action 0: choice 99 is out of range"):
        verify_document(document)


def test_it_names_an_action_for_the_wrong_seat() -> None:
    document = played()
    document["actions"][1]["seat"] = 0
    with pytest.raises(ReplayMismatch, match="action 1: recorded for seat 0, but seat 1 decides"):
        verify_document(document)


def test_it_names_a_truncated_log() -> None:
    document = played()
    document["actions"].pop()
    with pytest.raises(ReplayMismatch, match="the game is not over"):
        verify_document(document)


def test_it_names_a_changed_choice_that_changes_the_result() -> None:
    original = played()
    for index in range(len(original["actions"])):
        document = copy.deepcopy(original)
        document["actions"][index]["choice"] = 1 - document["actions"][index]["choice"]
        try:
            verify_document(document)
        except ReplayMismatch as exc:
            assert f"action {index}" in str(exc) or "outcome" in str(exc) or "over" in str(exc)
            return
    pytest.fail("no tampered choice was detected")


def test_it_names_a_rules_version_it_does_not_have() -> None:
    document = played()
    document["header"]["rules_version"] = "0-ancient"
    with pytest.raises(ReplayMismatch, match="recorded with tinynim rules '0-ancient'"):
        verify_document(document)


def test_it_names_fault_counts_that_disagree_with_the_log() -> None:
    document = played()
    document["footer"]["faults"][2] = 1
    with pytest.raises(ReplayMismatch, match="footer faults"):
        verify_document(document)


def test_it_ranks_forfeited_seats_last_like_the_match_loop() -> None:
    document = played()
    outcome = Outcome(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
                         for k, v in document["footer"]["outcome"].items()})
    document["footer"]["forfeited"] = [True, False, False]
    document["footer"]["outcome"] = forfeit_last(outcome, [True, False, False]).to_dict()
    assert verify_document(document)["ranks"] == document["footer"]["outcome"]["ranks"]


def test_frames_show_each_step_from_a_seats_view() -> None:
    document = played()
    steps = frames(document, seat=1)
    assert len(steps) == len(document["actions"]) + 1
    assert steps[0]["action"] is None and steps[-1]["decision"] is None
    assert all(set(frame["view"]["bonus"]) == {"1"} for frame in steps)  # only its own secret
    others = [f["decision"] for f in steps if f["decision"] and f["decision"]["seat"] != 1]
    assert others and all("options" not in decision for decision in others)


def test_frames_page_by_range_and_show_everything_omnisciently() -> None:
    document = played()
    page = frames(document, start=2, stop=4)
    assert [frame["step"] for frame in page] == [2, 3]
    assert page[0]["action"] == document["actions"][1]
    assert len(page[0]["view"]["bonus"]) == 3
