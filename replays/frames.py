"""Frames: the view after each step, derived by re-simulation on demand (ARCHITECTURE §6)."""

from __future__ import annotations

from typing import Any

from engine import Decision
from replays.verify import initial_state, step


def frames(
    document: dict[str, Any], start: int = 0, stop: int | None = None, seat: int | None = None
) -> list[dict[str, Any]]:
    """Frames start..stop-1; frame 0 is the position before the first action, frame k the one after action k-1.

    Each frame holds the view (seat's, or omniscient when seat is None), the events of the action that led
    to it, and the decision pending there. Callers decide who may see the omniscient view.
    """
    actions = document["actions"]
    last = len(actions) + 1 if stop is None else min(stop, len(actions) + 1)
    state = initial_state(document["header"])
    result = []
    events: list[Any] = []
    for index in range(last):
        if index > 0:
            events = step(state, index - 1, actions[index - 1])
        if index >= start:
            decision = state.decision()
            result.append({
                "step": index,
                "action": actions[index - 1] if index > 0 else None,
                "events": events,
                "view": state.view(seat),
                "decision": _visible_decision(decision, seat),
            })
    return result


def _visible_decision(decision: Decision | None, seat: int | None) -> dict[str, Any] | None:
    # Another seat's options can reveal its hidden hand, so a seat sees only who decides and what kind.
    if decision is None:
        return None
    if seat is None or decision.seat == seat:
        return decision.to_dict()
    return {"seat": decision.seat, "kind": decision.kind}
