"""The greedy heuristic for evolution (placeholder until the engine's option shapes are known)."""

from __future__ import annotations

from typing import Any

from engine.core import Decision


def score_options(view: dict[str, Any], decision: Decision) -> list[float]:
    return [0.0 for _ in decision.options]
