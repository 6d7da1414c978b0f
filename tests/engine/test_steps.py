"""The step machinery (engine/steps.py): step types registered with their JSON names, and a clear error for a step
type that does not fit its registration."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from engine.evolution.step_registry import STEPS as EVOLUTION_STEPS
from engine.evolution.step_registry import AskNegate, Take
from engine.marine.step_registry import STEPS as MARINE_STEPS
from engine.marine.step_registry import AskCard
from engine.steps import Steps


class Pair(NamedTuple):
    seat: int
    amount: int


class NoSeat(NamedTuple):
    amount: int


def nothing(st: Any, t: Any) -> None:
    return None


def no_options(st: Any, t: Any) -> list[Any]:
    return []


def no_answer(st: Any, t: Any, choice: Any) -> None:
    return None


@pytest.mark.parametrize("steps", [EVOLUTION_STEPS, MARINE_STEPS], ids=["evolution", "marine"])
def test_it_names_every_step_type_once_both_ways(steps: Steps[Any]) -> None:
    assert set(steps.names) == set(steps.tasks) | set(steps.asks)
    assert {name: step for step, name in steps.names.items()} == steps.types
    assert all(step._fields[0] == "seat" for step in steps.asks)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("steps", "step", "json"), [
    (EVOLUTION_STEPS, Take(3, 2, "watering_hole", True, False), ["take", 3, 2, "watering_hole", True, False]),
    (EVOLUTION_STEPS, AskNegate(1, "Climbing"), ["ask_negate", 1, "Climbing"]),
    (MARINE_STEPS, AskCard(0, 2, [1, -1]), ["ask_card", 0, 2, [1, -1]]),
], ids=["take", "ask_negate", "ask_card"])
def test_it_writes_a_step_as_its_json_list_and_reads_it_back(steps: Steps[Any], step: Any, json: list[Any]) -> None:
    assert steps.to_json(step) == json
    back = steps.load(json, "state.stack[0]", lambda kind, arg: True)
    assert type(back) is type(step) and back == step


def test_it_refuses_a_step_type_whose_fields_do_not_fit_the_signature() -> None:
    with pytest.raises(ValueError, match=r"step pair: Pair\('seat', 'amount'\) does not fit the signature \('seat',\)"):
        Steps[Any]().task(Pair, "pair", "seat")(nothing)


def test_it_refuses_a_json_name_registered_twice() -> None:
    steps = Steps[Any]()
    steps.task(Pair, "pair", "seat", "int")(nothing)
    with pytest.raises(ValueError, match="step pair: NoSeat or its name is registered already"):
        steps.task(NoSeat, "pair", "int")(nothing)
    with pytest.raises(ValueError, match="step pair2: Pair or its name is registered already"):
        steps.task(Pair, "pair2", "seat", "int")(nothing)


def test_it_refuses_an_ask_whose_first_field_is_not_the_seat() -> None:
    with pytest.raises(ValueError, match="step no_seat: the first field of NoSeat must be seat"):
        Steps[Any]().ask(NoSeat, "no_seat", "kind", "Prompt.", (), no_options, no_answer)
