"""What the generic conformance suite must know about each game's hidden information and scoring.

- `perturb_hidden(game, state_dict, seat, rng) -> state_dict`: a copy of the state that differs from it only in
  information hidden from `seat` (deck order, other hands, face-down cards, secret choices). A game package may
  provide its own `perturb_hidden(state_dict, seat, rng)`; otherwise the function registered here is used.
- `hidden_card_tokens(game, state_dict, seat)`: strings that name cards hidden from seat and nowhere public, to
  check that a view holds none of them.
- `score_parts(game, final_view)`: each seat's score breakdown (name -> points) and total from the final
  omniscient view.
A registered game missing here fails the tests that need it, with a message naming this file.
"""

from __future__ import annotations

import copy
import importlib
import random
from collections.abc import Callable
from typing import Any

from engine.registry import load_game

StateDict = dict[str, Any]
Perturber = Callable[[StateDict, int, random.Random], StateDict]
ScoreParts = Callable[[dict[str, Any]], list[tuple[dict[str, int], int]]]

PERTURBERS: dict[str, Perturber] = {}
SCORE_PARTS: dict[str, ScoreParts] = {}
HIDDEN_TOKENS: dict[str, Callable[[StateDict, int], set[str]]] = {}


def perturb_hidden(game_name: str, state_dict: StateDict, seat: int, rng: random.Random) -> StateDict:
    hook = _game_hook(game_name, "perturb_hidden")
    if hook is not None:
        return hook(copy.deepcopy(state_dict), seat, rng)  # type: ignore[no-any-return]
    if game_name not in PERTURBERS:
        raise LookupError(f"no hidden-information perturbation for {game_name!r}: add one to tests/engine/hidden.py")
    return PERTURBERS[game_name](copy.deepcopy(state_dict), seat, rng)


def _game_hook(game_name: str, attribute: str) -> Callable[..., Any] | None:
    """attribute of the game's own module or package (engine/<game>/), when the game provides it."""
    module_name = type(load_game(game_name)).__module__
    for name in (module_name, module_name.rpartition(".")[0]):
        if name:
            hook = getattr(importlib.import_module(name), attribute, None)
            if callable(hook):
                return hook  # type: ignore[no-any-return]
    return None


def score_parts(game_name: str, final_view: dict[str, Any]) -> list[tuple[dict[str, int], int]]:
    if game_name not in SCORE_PARTS:
        raise LookupError(f"no score breakdown reader for {game_name!r}: add one to tests/engine/hidden.py")
    return SCORE_PARTS[game_name](final_view)


def hidden_card_tokens(game_name: str, state_dict: StateDict, seat: int) -> set[str]:
    reader = HIDDEN_TOKENS.get(game_name)
    return reader(state_dict, seat) if reader is not None else set()


# game -> paths (keys and list indices into to_dict()) of counts that must never be negative
NEGATIVE_COUNT_PATHS: dict[str, list[tuple[Any, ...]]] = {}


def negative_count_paths(game_name: str) -> list[tuple[Any, ...]]:
    return NEGATIVE_COUNT_PATHS.get(game_name, [])
