"""Marine: Evolution & Domination, a complete game on the Dominant Species: Marine actions (docs/rules/marine.md)."""

from engine.marine.data import PROJECT_RULES
from engine.marine.game import GAME, MarineGame
from engine.marine.hidden import perturb_hidden
from engine.marine.render import render
from engine.marine.state import MarineState

__all__ = ["GAME", "PROJECT_RULES", "MarineGame", "MarineState", "perturb_hidden", "render"]
