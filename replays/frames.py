"""Frames: the view after each step, derived by re-simulation on demand (docs/architecture.md#replays)."""

from __future__ import annotations

from typing import Any

from engine import Decision
from replays.verify import Resimulation

PUBLIC = "public"
HIDDEN = "?"
# Frames per request of the one frames endpoint, /api/matches/ID/frames/, which the viewer reads in chunks of this
# size too (docs/api.md, "Replays and frames").
MAX_FRAMES = 100


def frames(
    document: dict[str, Any], start: int = 0, stop: int | None = None, seat: int | str | None = None
) -> list[dict[str, Any]]:
    """Frames start..stop-1; frame 0 is the position before the first action, frame k the one after action k-1.

    Each frame holds the view (seat's, the public one when seat is "public", or omniscient when seat is None), the
    action that led to it and its events, the decision pending there, and `decided`: the decision just taken (the
    previous frame's pending decision, as this view may see it, with the action's record). Callers decide who may
    see the omniscient view.
    """
    if isinstance(seat, str) and seat != PUBLIC:
        raise ValueError(f"a frame's view is a seat number, {PUBLIC!r} or None (omniscient), got {seat!r}")
    public, own = seat == PUBLIC, seat if isinstance(seat, int) else None
    actions = document["actions"]
    last = len(actions) + 1 if stop is None else min(stop, len(actions) + 1)
    sim = Resimulation(document["header"])
    result = []
    events: list[Any] = []
    pending: dict[str, Any] | None = None  # the previous frame's decision, as this view sees it
    for index in range(last):
        if index > 0:
            events = sim.step(index - 1, actions[index - 1])
        state = sim.state
        if index + 1 < start:
            continue
        decision = _visible_decision(state.decision(), own, public)
        if index >= start:
            action = actions[index - 1] if index > 0 else None
            result.append({
                "step": index,
                "action": action,
                "events": events,
                "view": public_view(state, document["header"]["players"]) if public else state.view(own),
                "decision": decision,
                "decided": None if action is None else dict(pending or {}, **action),
            })
        pending = decision
    return result


def seat_of(view: str) -> int | str | None:
    """The `seat` argument of frames() for a view name the visibility rule allowed: "omniscient", "public" or a seat."""
    return None if view == "omniscient" else view if view == PUBLIC else int(view)


def public_view(state: Any, players: int) -> dict[str, Any]:
    """What every seat sees, and so what a spectator may see while the match runs: the parts on which all the seats'
    views agree; where they differ (a hand, a face-down card), the hidden form (None, or "?")."""
    common: dict[str, Any] = _common([state.view(seat) for seat in range(players)])
    return common


def _common(values: list[Any]) -> Any:
    first = values[0]
    if all(value == first for value in values[1:]):
        return first
    if all(isinstance(value, dict) for value in values):
        return {key: _common([value[key] for value in values]) for key in first if all(key in v for v in values)}
    if all(isinstance(value, list) and len(value) == len(first) for value in values):
        return [_common(list(items)) for items in zip(*values, strict=True)]
    return HIDDEN if HIDDEN in values else None


def _visible_decision(decision: Decision | None, seat: int | None, public: bool = False) -> dict[str, Any] | None:
    # Another seat's options can reveal its hidden hand, so a seat sees only who decides and what kind.
    if decision is None:
        return None
    if public:
        return {"seat": decision.seat, "kind": decision.kind}
    if seat is None or decision.seat == seat:
        return decision.to_dict()
    return {"seat": decision.seat, "kind": decision.kind}
