"""Marine's registry of steps (engine/steps.py explains the machinery).

An ask with no options is skipped (the seed: "do what is possible and skip the rest"). Argument kinds, checked when
a state is read from a dict: seat, int, space, hex, element, slot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.steps import Steps, Task

if TYPE_CHECKING:
    from engine.marine.state import MarineState

STEPS: Steps[MarineState] = Steps()
task, ask = STEPS.task, STEPS.ask

__all__ = ["STEPS", "Task", "ask", "task"]
