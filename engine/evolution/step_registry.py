"""Evolution's registry of steps (engine/steps.py explains the machinery).

Argument kinds (for validation of hand-written states): seat, sid, card, src, bool, int, str, trait, triggers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.steps import Steps

if TYPE_CHECKING:
    from engine.evolution.state import EvolutionState

STEPS: Steps[EvolutionState] = Steps()
Task = list[Any]
task, ask = STEPS.legacy_task, STEPS.legacy_ask

__all__ = ["STEPS", "Task", "always", "ask", "task"]


def always(st: EvolutionState, t: Task) -> bool:
    """For `ask(..., always)`: offer the step even with one option (its count depends on hidden cards)."""
    return True
