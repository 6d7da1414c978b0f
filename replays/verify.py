"""Verification by re-simulation: the action log must reproduce the recorded outcome (docs/architecture.md#replays).

Needs only the engine, so replays verify offline; the runner records a result first and verifies its replay after
the match (replays/verification.py, docs/architecture.md#replays).

A branch's header carries `"branch": {"parent", "step", "force", "resample"}` (docs/branches.md). Its action log
holds every step from the start: the parent's first steps (K, or K - 1 when step K is forced), the forced option if
any, then the branch's own. With `resample` set, the state right after the kept parent steps is replaced by
`state.resample(resample)`. Verification, frames, the live log and the runner all walk a log with `Resimulation`,
so a branch replays exactly as it was played.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from engine import Decision, IllegalAction, InvalidOptions, State, load_game
from replays.format import ReplayFormatError, canonical_json, check_document


class ReplayMismatch(Exception):
    """The action log does not reproduce the replay's outcome; the message says where and how."""


def initial_state(header: dict[str, Any]) -> State:
    """The game's state before the first decision; raises ReplayMismatch for an unknown game or rules version."""
    try:
        game = load_game(header["game"])
    except InvalidOptions as exc:
        raise ReplayMismatch(str(exc)) from exc
    try:
        game = game.at_rules_version(header["rules_version"])
    except InvalidOptions as exc:
        raise ReplayMismatch(f"replay was recorded with {game.name} rules {header['rules_version']!r}: {exc}") from exc
    try:
        return game.new_state(header["players"], header["seed"], header["options"])
    except InvalidOptions as exc:
        raise ReplayMismatch(f"the header does not start a game: {exc}") from exc


def step(state: State, index: int, record: dict[str, Any]) -> list[Any]:
    """Apply action record number index; raises ReplayMismatch when it does not fit the pending decision."""
    decision = state.decision()
    if decision is None:
        raise ReplayMismatch(f"action {index}: the game was already over")
    if record["seat"] != decision.seat:
        raise ReplayMismatch(f"action {index}: recorded for seat {record['seat']}, but seat {decision.seat} decides")
    try:
        return state.choose(record["choice"])
    except IllegalAction as exc:
        raise ReplayMismatch(f"action {index}: {exc}") from exc


def kept_steps(branch: dict[str, Any]) -> int:
    """How many of the parent's steps a branch keeps: K, or K - 1 when it forces step K."""
    return int(branch["step"]) - (branch.get("force") is not None)


class Resimulation:
    """A replay's position, one action record at a time; `state` is the position after the records stepped so far
    (resampled at the branch point, if the header says so)."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.state = initial_state(header)
        branch = header.get("branch") or {}
        self._seed = branch.get("resample")
        self._resample_after = kept_steps(branch) if self._seed is not None else None
        self._maybe_resample(0)

    def step(self, index: int, record: dict[str, Any]) -> list[Any]:
        """Apply action record number index (ReplayMismatch when it does not fit); its events."""
        events = step(self.state, index, record)
        self._maybe_resample(index + 1)
        return events

    def _maybe_resample(self, stepped: int) -> None:
        if stepped == self._resample_after:
            self.state = self.state.resample(int(self._seed))  # type: ignore[arg-type]


def branch_start(header: dict[str, Any], prefix: Sequence[dict[str, Any]],
                 watch: Callable[[int, State, Decision], None] | None = None,
                 digest: Digest | None = None) -> State:
    """The position a branch's bots play on from: the prefix stepped (and resampled) from the header's start.

    watch(index, state, decision), if given, sees each prefix step before it is taken (the runner walks its built-in
    bots through the parent's steps with it); digest, if given, takes each prefix step's events."""
    sim = Resimulation(header)
    for index, record in enumerate(prefix):
        decision = sim.state.decision()
        if watch is not None and decision is not None:
            watch(index, sim.state, decision)
        events = sim.step(index, record)
        if digest is not None:
            digest.add(events)
    return sim.state


_NO_EVENTS = b"[]"  # canonical_json([]): a step without events (a quarter of Evolution's) is not encoded


class Digest:
    """The footer's digest: the sha256 of every step's events, then of the final omniscient view. verify_document
    makes it by re-simulation; the runner makes it while the match is played, so the re-simulation after the match
    proves the events and views it played (docs/architecture.md#replays)."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()

    def add(self, events: list[Any]) -> None:
        self._sha.update(_NO_EVENTS if type(events) is list and not events else canonical_json(events))

    def of_final(self, state: State) -> str:
        """The hex digest, with the final position's omniscient view; more events may still be added after."""
        sha = self._sha.copy()
        sha.update(canonical_json(state.view(None)))
        return sha.hexdigest()


def verify_document(document: dict[str, Any]) -> dict[str, Any]:
    """Re-simulate the whole log; return the outcome, or raise ReplayMismatch naming the first difference.

    The returned outcome carries "digest": the sha256 of every event and the final omniscient view. The runner
    stores it in the footer, so later verifications also prove that events and views replay byte for byte.
    """
    try:
        check_document(document)
    except ReplayFormatError as exc:
        raise ReplayMismatch(str(exc)) from exc
    header, actions, footer = document["header"], document["actions"], document["footer"]
    sim = Resimulation(header)
    digest = Digest()
    for index, record in enumerate(actions):
        digest.add(sim.step(index, record))
    state = sim.state
    if state.decision() is not None:
        raise ReplayMismatch(f"the action log ends after {len(actions)} action(s) but the game is not over")
    engine_outcome = state.outcome()
    assert engine_outcome is not None
    _check_counts(header["players"], actions, footer)
    expected = engine_outcome.with_forfeits(footer.get("forfeited") or [False] * header["players"]).to_dict()
    _compare(expected, footer["outcome"])
    replayed = digest.of_final(state)
    if "digest" in footer and footer["digest"] != replayed:
        raise ReplayMismatch("the events or the final position differ from the recorded digest "
                             "(the engine does not replay this game byte for byte)")
    return dict(expected, digest=replayed)


def _check_counts(players: int, actions: list[dict[str, Any]], footer: dict[str, Any]) -> None:
    counted = [0] * players
    for record in actions:
        if record.get("fault"):
            counted[record["seat"]] += 1
    if len(footer.get("forfeited") or [False] * players) != players:
        raise ReplayMismatch(f"footer forfeited has {len(footer['forfeited'])} entries for {players} seats")
    if "faults" in footer and list(footer["faults"]) != counted:
        raise ReplayMismatch(f"footer faults {footer['faults']} but the action log has {counted}")


def _compare(expected: dict[str, Any], recorded: dict[str, Any]) -> None:
    for key in ("scores", "ranks", "tiebreaks", "termination"):
        if expected.get(key) != recorded.get(key):
            raise ReplayMismatch(f"outcome {key} differs: re-simulation gives {expected.get(key)!r}, "
                                 f"the replay says {recorded.get(key)!r}")
