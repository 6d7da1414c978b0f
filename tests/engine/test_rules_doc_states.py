"""docs/rules/*.md and the state loaders agree: every ```json example loads (and plays on), and the tables of state
dict keys name exactly the keys the loader accepts, each required or optional as the loader treats it."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.core import InvalidState
from engine.evolution import serial as evolution_serial
from engine.marine import serial as marine_serial
from engine.registry import load_game

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+) \|", re.M)
# Where each documented key lives: the prefix of its name in the docs' tables, and the loader's accepted keys there.
LEVELS = {
    "evolution": {"": evolution_serial.STATE_KEYS, "seats[].": evolution_serial.SEAT_KEYS,
                  "seats[].species[].": evolution_serial.SPECIES_KEYS},
    "marine": {"": marine_serial.STATE_KEYS, "tiles[].": marine_serial.TILE_KEYS,
               "special_pawns.*.": marine_serial.SPECIAL_KEYS, "vp[].": marine_serial.VP_PARTS},
}


def examples() -> list[Any]:
    out = []
    for path in sorted(DOCS.glob("*.md")):
        for i, block in enumerate(re.findall(r"```json\n(.*?)```", path.read_text(encoding="utf-8"), re.S)):
            out.append(pytest.param(path.stem, block, id=f"{path.stem}-{i}"))
    return out


def documented(game_name: str) -> dict[str, bool]:
    """The state dict keys of the rules page's tables: key -> required."""
    text = (DOCS / f"{game_name}.md").read_text(encoding="utf-8")
    section = text[text.index("## The state dict"):]
    section = section[:section.find("\n## ", 1)] if "\n## " in section[1:] else section
    tables = [t for t in section.split("\n\n") if t.startswith("| key | default | meaning |")]
    return {key: default.strip() == "required" for table in tables for key, default in ROW.findall(table)}


def test_every_rules_page_has_examples() -> None:
    assert {p.values[0] for p in examples()} == {"evolution", "marine"}


@pytest.mark.parametrize(("game_name", "block"), examples())
def test_every_json_example_in_the_rules_docs_loads_and_plays_on(game_name: str, block: str) -> None:
    game = load_game(game_name)
    state = game.state_from_dict(json.loads(block))
    data = state.to_dict()
    assert game.state_from_dict(data).to_dict() == data
    state.advance()
    assert state.settled
    d = state.decision()
    if d is not None:
        state.choose(len(d.options) - 1)


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_the_docs_table_names_the_keys_the_loader_accepts(game_name: str) -> None:
    keys = set(documented(game_name))
    accepted = {prefix + key for prefix, known in LEVELS[game_name].items() for key in known}
    assert sorted(keys - accepted) == [], "documented but not read by the loader"
    assert sorted(accepted - keys) == [], "read by the loader but not documented"


def full_state(game_name: str) -> dict[str, Any]:
    """A state dict with every key at every level present but `turn` (a real game a few decisions in)."""
    game = load_game(game_name)
    s = game.new_state(3, 4)
    for _ in range(3):
        d = s.decision()
        assert d is not None
        s.choose(0)
    return s.to_dict()


def place(data: dict[str, Any], key: str) -> tuple[dict[str, Any], str]:
    """The object holding a documented key in a state dict (the first one at its level), and the key's name there."""
    if key.startswith("seats[].species[]."):
        return data["seats"][0]["species"][0], key.rsplit(".", 1)[1]
    for prefix, get in (("seats[].", lambda: data["seats"][0]), ("tiles[].", lambda: data["tiles"][0]),
                        ("vp[].", lambda: data["vp"][0]), ("special_pawns.*.", lambda: data["special_pawns"]["Sun"])):
        if key.startswith(prefix):
            return get(), key[len(prefix):]
    return data, key


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_a_required_key_is_refused_missing_and_an_optional_one_defaults(game_name: str) -> None:
    game = load_game(game_name)
    for key, required in documented(game_name).items():
        data = copy.deepcopy(full_state(game_name))
        where, name = place(data, key)
        if key == "turn":  # only without a stack
            del data["stack"]
            data["turn"] = data["first_player"]
        del where[name]
        if required:
            with pytest.raises(InvalidState, match=re.escape(repr(name))):
                game.state_from_dict(data)
        else:
            game.state_from_dict(data)


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_a_key_the_docs_do_not_name_is_refused_naming_it(game_name: str) -> None:
    game = load_game(game_name)
    for prefix in LEVELS[game_name]:
        data = full_state(game_name)
        where, _ = place(data, prefix + "x")
        where["watering_hol"] = 1
        with pytest.raises(InvalidState, match="unknown key.*'watering_hol'"):
            game.state_from_dict(data)


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_the_docs_table_of_steps_names_every_step_with_its_arguments(game_name: str) -> None:
    """Every point of a round can be written: each step a stack may hold is documented, with its arguments."""
    from engine.steps import StepState

    state = load_game(game_name).new_state(2, 1)
    assert isinstance(state, StepState)
    text = (DOCS / f"{game_name}.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \| ((?:`[a-z_]+`(?:, )?)+|none) \| .* \|$", text, re.M)
    documented = {name: tuple(re.findall(r"`([a-z_]+)`", args)) for name, args in rows
                  if name in state.steps.types or name.startswith(("ask_", "end_"))}
    assert documented == {name: step._fields for name, step in state.steps.types.items()}


@pytest.mark.parametrize("game_name", ["evolution", "marine"])
def test_turn_and_stack_together_are_refused(game_name: str) -> None:
    data = full_state(game_name)
    data["turn"] = 0
    with pytest.raises(InvalidState, match="state.turn: .* either as state.turn or in state.stack, not both"):
        load_game(game_name).state_from_dict(data)
