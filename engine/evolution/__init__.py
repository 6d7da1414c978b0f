"""Evolution with the Flight expansion: a complete, deterministic rules engine (docs/rules/evolution.md)."""

from engine.evolution.game import GAME, EvolutionGame
from engine.evolution.hidden import perturb_hidden
from engine.evolution.render import render
from engine.evolution.state import EvolutionState

__all__ = ["GAME", "EvolutionGame", "EvolutionState", "perturb_hidden", "render"]
