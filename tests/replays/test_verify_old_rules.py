"""A replay recorded under an older rules version still verifies byte for byte (Game.at_rules_version).

data/marine_rules1_asteroid_discarded.json was recorded by the engine at Marine rules 1, before rules 2 named the
Asteroid discarded from slot 1 (`asteroid_discarded`): 2 random bots, seed 2, length short, the game ending by that
discard. Its footer digest covers every event and the final omniscient view.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from replays.verify import ReplayMismatch, verify_document

OLD = Path(__file__).parent / "data" / "marine_rules1_asteroid_discarded.json"


def old_replay() -> dict[str, Any]:
    return json.loads(OLD.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_a_marine_rules_1_replay_verifies_with_its_recorded_digest() -> None:
    document = old_replay()
    assert document["header"]["rules_version"] == "1"
    assert verify_document(document)["digest"] == document["footer"]["digest"]


def test_the_same_log_under_rules_2_gives_other_bytes() -> None:
    document = copy.deepcopy(old_replay())
    document["header"]["rules_version"] = "2"
    with pytest.raises(ReplayMismatch, match="differ from the recorded digest"):
        verify_document(document)


def test_a_rules_version_the_engine_never_had_is_named() -> None:
    document = copy.deepcopy(old_replay())
    document["header"]["rules_version"] = "0"
    with pytest.raises(ReplayMismatch, match="recorded with marine rules '0': marine has no rules version '0'"):
        verify_document(document)
