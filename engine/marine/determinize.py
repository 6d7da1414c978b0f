"""A seat's determinization (Game.determinize) and the seat context it needs beside the view (State.seat_context).

Marine hides the same things from every seat (docs/rules/marine.md, "What is hidden"): the order of the Evolution
draw pile and which cards were left out of the game, the Wanderlust tiles below the stacks' top tiles, and the seed
of later terrain-marker draws. Every action and event is public.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import JSON, InvalidState
from engine.marine.data import ASTEROID, ASTEROID_DEPTH, CARD_NAMES, STANDARD_EARTH, TERRAINS, TILE_SUPPLY
from engine.marine.serial import VP_PARTS
from engine.marine.state import MarineState
from engine.marine.step_registry import STEPS
from engine.search import determinize_with
from engine.steps import deep

if TYPE_CHECKING:
    from engine.marine.game import MarineGame


def seat_context(st: MarineState, seat: int) -> dict[str, JSON]:
    """The rules version, the options and the steps still to run: all of it public."""
    return {"game": "marine", "rules_version": st.game.rules_version, "options": dict(st.options),
            "stack": [STEPS.to_json(t) for t in st.stack]}


def determinize(game: MarineGame, seat: int, view: Mapping[str, Any], history: Sequence[Any], seed: int,
                context: Mapping[str, Any] | None) -> MarineState:
    return determinize_with(lambda: _determinize(game, seat, view, history, seed, context or {}), "marine", seat,
                            view, history, seed, context)


def _determinize(game: MarineGame, seat: int, view: Mapping[str, Any], history: Sequence[Any], seed: int,
                 context: Mapping[str, Any]) -> MarineState:
    rng = random.Random(f"{seed}:determinize")
    data = {
        "game": "marine", "options": dict(context["options"]), "seed": rng.randrange(1 << 30),
        "num_players": view["num_players"], "round": view["round"], "phase": view["phase"],
        "first_player": view["first_player"], "animals": list(view["animals"]),
        "tiles": [{"hex": list(t["hex"]), "terrain": t["terrain"], "species": list(t["species"])}
                  for t in view["tiles"]],
        "elements": deep(list(view["elements"])),
        "vp": [{k: parts[k] for k in VP_PARTS} for parts in view["score_parts"]],
        "pawns": list(view["pawns"]), "display": {k: list(v) for k, v in view["display"].items()},
        "markers": list(view["markers"]), "deck": _deck(view, rng),
        "slots": [None if c is None else c["card"] for c in view["slots"]], "discard": list(view["discard"]),
        "asteroid_taken": view["asteroid_taken"],
        **({"asteroid_discarded": view["asteroid_discarded"]} if "asteroid_discarded" in view else {}),
        "tile_stacks": _tile_stacks(view, rng),
        "special_pawns": {k: dict(v) for k, v in view["special_pawns"].items()},
        "stack": deep(list(context["stack"])),
    }
    try:
        st = game.at_rules_version(context["rules_version"]).state_from_dict(data)
    except (InvalidState, ValueError) as exc:
        raise ValueError(f"the view and context describe no state of the game: {exc}") from None
    d, shown = st.decision(), view["decision"]
    if d is None or d.kind != shown["kind"] or list(d.options) != shown["options"]:
        raise ValueError(f"the context does not rebuild the view's decision {shown['kind']!r}")
    assert isinstance(st, MarineState)
    return st


def _deck(view: Mapping[str, Any], rng: random.Random) -> list[str]:
    """The draw pile, top first: unseen cards (neither in a slot nor discarded) at random, the rest left out of the
    game; the Asteroid, until seen, among the bottom five (the published setup)."""
    seen = set(view["discard"]) | {c["card"] for c in view["slots"] if c is not None}
    unseen = [c for c in CARD_NAMES if c not in seen and c != ASTEROID]
    rng.shuffle(unseen)
    count = view["deck_count"]
    asteroid = ASTEROID not in seen
    size = count - asteroid
    if not 0 <= size <= len(unseen):
        raise ValueError(f"the view counts {count} card(s) in the draw pile where {len(unseen)} unseen card(s) "
                         "are left")
    deck = unseen[:size]  # bottom first
    if asteroid:
        deck.insert(rng.randrange(min(ASTEROID_DEPTH, count)), ASTEROID)
    return deck[::-1]


def _tile_stacks(view: Mapping[str, Any], rng: random.Random) -> list[list[str]]:
    """The Wanderlust stacks, top first: each top as shown, below it tiles of the supply that are neither on the
    earth (beyond the standard earth) nor on top of a stack."""
    left = {t: TILE_SUPPLY[t] for t in TERRAINS}
    for *_, terrain in STANDARD_EARTH:
        left[terrain] += 1
    for t in view["tiles"]:
        left[t["terrain"]] -= 1
    for s in view["tile_stacks"]:
        if s["top"] is not None:
            left[s["top"]] -= 1
    if any(n < 0 for n in left.values()):
        raise ValueError("the view shows more tiles of a terrain than the game has")
    below = [t for t in TERRAINS for _ in range(left[t])]
    rng.shuffle(below)
    if len(below) != sum(max(s["count"] - 1, 0) for s in view["tile_stacks"]):
        raise ValueError(f"the view's tile stacks do not hold the {len(below)} tile(s) left")
    stacks = []
    for s in view["tile_stacks"]:
        size = max(s["count"] - 1, 0)
        stacks.append(([s["top"]] if s["top"] is not None else []) + below[:size])
        del below[:size]
    return stacks
