"""A branch that changes nothing plays on exactly as its parent did, and every branch's replay verifies
(docs/branches.md). Over the stored parent replays in data/branch_parent_*.json: greedy against greedy, one game of
each engine. Regenerate them (after a deliberate rules change) with `python tests/replays/test_branch_replays.py`.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from engine import load_game
from replays import format as replay_format
from replays.branches import branch_prefix
from replays.frames import frames
from replays.verify import ReplayMismatch, verify_document
from workers.play import play_game
from workers.runner import start_branch
from workers.seats import InProcessSeat

DATA = Path(__file__).parent / "data"
PARENTS = {"marine": DATA / "branch_parent_marine.json", "evolution": DATA / "branch_parent_evolution.json"}
BOT_SEEDS = (101, 202)  # each seat's greedy bot seed, in parent and branch alike (the runner's: from match and seat)


def players(bots: tuple[str, ...] = ("greedy", "greedy"), game: str = "marine") -> list[InProcessSeat]:
    return [InProcessSeat(bot, game, seed) for bot, seed in zip(bots, BOT_SEEDS, strict=True)]


def play(game: str, seed: int, bots: tuple[str, ...] = ("greedy", "greedy")) -> dict[str, Any]:
    """A parent replay (greedy against greedy unless told), verified, as the runner writes it."""
    spec = load_game(game)
    options = spec.validate_options({"deck": "short"} if game == "evolution" else {})
    result = play_game(game, 2, seed, options, players(bots, game))
    assert result.outcome is not None
    header = replay_format.make_header(game, spec.rules_version, options, seed, {"move_ms": 1000, "bank_ms": 10000},
                                       [{"bot": bot} for bot in bots], 1)
    document = {"header": header, "actions": result.actions,
                "footer": replay_format.make_footer(result.outcome.to_dict(), result.faults, result.forfeited)}
    document["footer"]["digest"] = verify_document(document)["digest"]
    return document


def stored(game: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(PARENTS[game].read_text(encoding="utf-8"))
    return document


def branch(parent: dict[str, Any], step: int, force: int | None = None,
           bots: tuple[str, ...] = ("greedy", "greedy"), resample: int | None = None) -> dict[str, Any]:
    """Play the branch as the runner does: the prefix, then the bots from there; its replay document, verified."""
    game = parent["header"]["game"]
    header = dict(parent["header"], match=2, branch={"parent": 1, "step": step, "force": force, "resample": resample})
    prefix = branch_prefix(parent, step, force)
    seats = players(bots, game)
    start = start_branch(header, prefix, seats)
    result = play_game(game, 2, header["seed"], header["options"], seats, start=start)
    assert result.outcome is not None
    document = {"header": header, "actions": result.actions,
                "footer": replay_format.make_footer(result.outcome.to_dict(), result.faults, result.forfeited)}
    document["footer"]["digest"] = verify_document(document)["digest"]
    return document


def moves(document: dict[str, Any]) -> list[tuple[int, int]]:
    return [(record["seat"], record["choice"]) for record in document["actions"]]


@pytest.mark.parametrize("game", sorted(PARENTS))
def test_the_stored_parents_still_verify_byte_for_byte(game: str) -> None:
    parent = stored(game)
    assert verify_document(parent)["digest"] == parent["footer"]["digest"]


@pytest.mark.parametrize("game", sorted(PARENTS))
@settings(max_examples=examples(12), deadline=None)
@given(data=st.data())
def test_a_branch_that_changes_nothing_replays_the_parents_remaining_moves(game: str, data: st.DataObject) -> None:
    parent = stored(game)
    step = data.draw(st.integers(0, len(parent["actions"]) - 1), label="step")
    child = branch(parent, step)
    assert moves(child) == moves(parent)
    assert child["footer"]["outcome"] == parent["footer"]["outcome"]
    assert child["footer"]["digest"] == parent["footer"]["digest"]  # every event and the final position


@pytest.mark.parametrize("game", sorted(PARENTS))
def test_a_forced_step_is_recorded_and_the_branch_verifies(game: str) -> None:
    parent = stored(game)
    step = next(index + 1 for index, _ in enumerate(parent["actions"]) if _options(parent, index + 1) > 1)
    other = 1 - parent["actions"][step - 1]["choice"] if parent["actions"][step - 1]["choice"] < 2 else 0
    child = branch(parent, step, force=other)
    assert moves(child)[:step - 1] == moves(parent)[:step - 1]
    assert child["actions"][step - 1] == {"seat": parent["actions"][step - 1]["seat"], "choice": other, "ms": 0,
                                          "forced": True}
    assert child["footer"]["faults"] == [0, 0]


# Every built-in bot kind a match can hold: the stored greedy games, and games of the others played here.
BOT_KINDS = ("greedy", "random", "greedy_eps30")


@functools.cache
def parent_of(game: str, bot: str) -> dict[str, Any]:
    return stored(game) if bot == "greedy" else play(game, 7, (bot, bot))


@pytest.mark.parametrize("bot", BOT_KINDS)
@pytest.mark.parametrize("game", sorted(PARENTS))
@settings(max_examples=examples(6), deadline=None)
@given(data=st.data())
def test_forcing_the_move_that_was_played_replays_the_parent(game: str, bot: str, data: st.DataObject) -> None:
    """A "what if" isolates the move: the forced seat's bot is walked through the forced step too, so its seeded
    draws and memory stay where the parent's were, and forcing the played option changes nothing."""
    parent = parent_of(game, bot)
    step = data.draw(st.integers(1, len(parent["actions"])), label="step")
    child = branch(parent, step, force=parent["actions"][step - 1]["choice"], bots=(bot, bot))
    assert moves(child) == moves(parent)
    assert child["footer"]["outcome"] == parent["footer"]["outcome"]
    assert child["footer"]["digest"] == parent["footer"]["digest"]


def _options(document: dict[str, Any], step: int) -> int:
    from replays.branches import decision_of_step

    return len(decision_of_step(document, step).options)


def test_other_bots_play_on_from_the_same_position() -> None:
    parent = stored("marine")
    child = branch(parent, 10, bots=("greedy", "random"))
    assert moves(child)[:10] == moves(parent)[:10]
    assert moves(child) != moves(parent)


def test_a_branch_replay_whose_branch_point_is_changed_no_longer_verifies() -> None:
    child = branch(stored("marine"), 5, force=0)
    tampered = copy.deepcopy(child)
    tampered["header"]["branch"]["resample"] = 99  # claims a re-deal the game never had
    with pytest.raises((ReplayMismatch, AttributeError)):
        verify_document(tampered)


def test_a_branch_header_that_is_not_a_branch_point_is_named() -> None:
    child = branch(stored("marine"), 5)
    child["header"]["branch"] = {"parent": 1}
    with pytest.raises(ReplayMismatch, match="header.branch must be an object with exactly parent, step, force, "
                                             "resample"):
        verify_document(child)


@pytest.mark.parametrize("game", sorted(PARENTS))
@settings(max_examples=examples(4), deadline=None)
@given(data=st.data())
def test_a_resampled_branch_shows_every_seat_what_it_saw_and_verifies(game: str, data: st.DataObject) -> None:
    parent = stored(game)
    step = data.draw(st.integers(0, len(parent["actions"]) - 1), label="step")
    seed = data.draw(st.integers(0, 2**62), label="seed")
    child = branch(parent, step, resample=seed)
    assert moves(child)[:step] == moves(parent)[:step]
    at_step = [frames(document, step, step + 1, seat)[0]["view"] for document in (parent, child) for seat in (0, 1)]
    assert at_step[:2] == at_step[2:]  # each seat's view at the branch point: what it had seen, unchanged
    assert moves(branch(parent, step, resample=seed)) == moves(child)  # the same seed, the same game


def test_resampling_changes_the_hidden_future() -> None:
    parent = stored("marine")
    omniscient = [frames(branch(parent, 30, resample=seed), 30, 31)[0]["view"] for seed in (1, 2)]
    assert omniscient[0] != omniscient[1] != frames(parent, 30, 31)[0]["view"]


def regenerate() -> None:
    for game, path in PARENTS.items():
        path.write_text(json.dumps(play(game, 7), sort_keys=True, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    regenerate()


class SeqRecorder(InProcessSeat):
    """A built-in seat that notes the seq of each decision it is asked."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.seqs: list[int] = []

    def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Any:
        self.seqs.append(seq)
        return super().decide(seq, view, decision, bank_ms)


def test_a_branchs_bots_are_asked_with_the_steps_of_the_whole_game() -> None:
    """seq is the step a decision makes (replays/links.py): a bot's stderr stamps and the viewer agree in a branch."""
    parent = stored("marine")
    seats = [SeqRecorder("greedy", "marine", seed) for seed in BOT_SEEDS]
    header = dict(parent["header"], branch={"parent": 1, "step": 10, "force": None, "resample": None})
    start = start_branch(header, branch_prefix(parent, 10, None), seats)
    result = play_game("marine", 2, header["seed"], header["options"], seats, start=start)
    asked = sorted(seats[0].seqs + seats[1].seqs)
    assert asked == list(range(11, len(result.actions) + 1))
