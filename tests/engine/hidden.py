"""What the generic conformance suite must know about each game's hidden information and scoring.

- `perturbations(game, state_dict, seat, rng)`: copies of the state that differ from it only in information hidden
  from `seat` (deck order, other hands, face-down cards, secret choices, the seed of later shuffles). A game
  package may provide its own `perturb_hidden(state_dict, seat, rng)`; it is used beside the one registered here.
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


def perturbations(game_name: str, state_dict: StateDict, seat: int, rng: random.Random) -> list[tuple[str, StateDict]]:
    """Every available perturbation of state_dict for seat: the game's own hook and the one written here.

    Two authors' perturbations catch more than one: the game's own may share a blind spot with its views.
    """
    found = []
    hook = _game_hook(game_name, "perturb_hidden")
    if hook is not None:
        found.append((f"engine.{game_name} perturb_hidden", hook(copy.deepcopy(state_dict), seat, rng)))
    if game_name in PERTURBERS:
        found.append(("tests/engine/hidden.py", PERTURBERS[game_name](copy.deepcopy(state_dict), seat, rng)))
    if not found:
        raise LookupError(f"no hidden-information perturbation for {game_name!r}: add one to tests/engine/hidden.py")
    return found


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


# -- evolution ---------------------------------------------------------------------------------------------------
# Read from engine/evolution/serial.py: cards are "Name:food" strings; "deck" and "reserve" list cards, each seat has
# "hand", "food_card" (secret until the reveal) and "species" with "face_down" traits (secret until the reveal);
# "seed" drives every later shuffle, so it is hidden from every seat too.


def _evolution_perturb(data: StateDict, seat: int, rng: random.Random) -> StateDict:
    """Deal every card seat cannot see afresh: deck, reserve, other hands, other food cards, other face-down
    traits (as far as the trait rules allow), the cards other seats are playing right now (for one of the same
    trait); and change the seed, which fixes every later shuffle."""
    from engine.evolution.cards import CARD_BIT, EVENT_BITS, FLIGHT, parse_card

    others = [data["seats"][s] for s in range(len(data["seats"])) if s != seat]
    places: list[tuple[list[Any], int]] = [(data[k], i) for k in ("deck", "reserve") for i in range(len(data[k]))]
    places += [(o["hand"], i) for o in others for i in range(len(o["hand"]))]
    food = [o for o in others if o.get("food_card") is not None]
    pool = [where[i] for where, i in places] + [o["food_card"] for o in food]
    rng.shuffle(pool)
    for s, o in enumerate(data["seats"]):
        if s == seat:
            continue
        # a card that seat s is playing right now (held in a pending step) must keep the species it may go on
        playing = {CARD_BIT[parse_card(a)] for t in data.get("stack", []) if len(t) > 1 and t[1] == s
                   for a in t[2:] if isinstance(a, str) and ":" in a}
        for sp in o["species"]:
            for j, card in enumerate(sp.get("face_down", [])):
                taken = playing | {CARD_BIT[parse_card(c)] for c in sp["traits"] + sp["face_down"] if c != card}
                fits = [k for k, c in enumerate(pool)
                        if not CARD_BIT[parse_card(c)] & (EVENT_BITS | FLIGHT) and CARD_BIT[parse_card(c)] not in taken]
                if fits:
                    k = rng.choice(fits)
                    sp["face_down"][j], pool[k] = pool[k], card
    _swap_pending_cards(data, seat, pool)
    for (where, i), card in zip(places, pool, strict=False):
        where[i] = card
    for o, card in zip(food, pool[len(places):], strict=True):
        o["food_card"] = card
    for o in others:
        o["hand"].sort(key=parse_card)
    data["seed"] = rng.randrange(1 << 30)
    return data


def _swap_pending_cards(data: StateDict, seat: int, pool: list[str]) -> None:
    """A card another seat is playing right now (held in a pending step, e.g. on its way to a species face down)
    is hidden too: swap it for a pooled card of the same trait, which leaves every rule about it unchanged."""
    for step in data.get("stack", []):
        if len(step) < 3 or step[1] == seat:
            continue
        for k in range(2, len(step)):
            card = step[k]
            if not isinstance(card, str) or ":" not in card:
                continue
            name = card.rsplit(":", 1)[0]
            twin = next((j for j, c in enumerate(pool) if c != card and c.rsplit(":", 1)[0] == name), None)
            if twin is not None:
                step[k], pool[twin] = pool[twin], card


def _evolution_hidden_tokens(data: StateDict, seat: int) -> set[str]:
    """Cards seat cannot see that are nowhere in sight: no view of seat may spell them."""
    me = data["seats"][seat]
    seen = set(me["hand"] + [me.get("food_card")] + data["discard"])
    seen |= {c for s in data["seats"] for sp in s["species"] for c in sp["traits"]}
    seen |= {c for sp in me["species"] for c in sp.get("face_down", [])}
    hidden = set(data["deck"] + data["reserve"])
    for s, other in enumerate(data["seats"]):
        if s != seat:
            hidden |= set(other["hand"]) | {other.get("food_card")}
            hidden |= {c for sp in other["species"] for c in sp.get("face_down", [])}
    return {f'"{card}"' for card in hidden - seen if card is not None}


def _evolution_score_parts(view: dict[str, Any]) -> list[tuple[dict[str, int], int]]:
    return [(dict(parts), total) for parts, total in zip(view["score_parts"], view["scores"], strict=True)]


PERTURBERS["evolution"] = _evolution_perturb
HIDDEN_TOKENS["evolution"] = _evolution_hidden_tokens
SCORE_PARTS["evolution"] = _evolution_score_parts
NEGATIVE_COUNT_PATHS["evolution"] = [
    ("watering_hole",), ("cliff",), ("round",), ("shuffles",), ("passes",), ("next_species_id",),
    ("seats", 0, "bag"), ("seats", 0, "species", 0, "population"), ("seats", 0, "species", 0, "body_size"),
    ("seats", 0, "species", 0, "food"), ("seats", 0, "species", 0, "fat"), ("seats", 0, "species", 0, "upkeep"),
]


# -- marine ------------------------------------------------------------------------------------------------------
# Read from engine/marine/serial.py: "deck" lists the Evolution draw pile top first (hidden from every seat but its
# count; the Asteroid is known to lie in its bottom 5); "tile_stacks" list the Wanderlust stacks top first (only the
# top tiles are shown); "seed" fixes later terrain-marker draws.


def _marine_perturb(data: StateDict, seat: int, rng: random.Random) -> StateDict:
    """Swap two cards of the draw pile above its bottom 5, swap two tiles below the stack tops, change the seed."""
    deck = data["deck"]
    top = len(deck) - 5
    if top >= 2:
        i, j = rng.sample(range(top), 2)
        deck[i], deck[j] = deck[j], deck[i]
    below = [(s, k) for s, stack in enumerate(data["tile_stacks"]) for k in range(1, len(stack))]
    if len(below) >= 2:
        (s1, k1), (s2, k2) = rng.sample(below, 2)
        stacks = data["tile_stacks"]
        stacks[s1][k1], stacks[s2][k2] = stacks[s2][k2], stacks[s1][k1]
    data["seed"] = rng.randrange(1 << 30)
    return data


def _marine_hidden_tokens(data: StateDict, seat: int) -> set[str]:
    """Cards of the draw pile that are nowhere in sight (the Asteroid is public knowledge: it is in every game)."""
    seen = set(data["discard"]) | {c for c in data["slots"] if c is not None} | {"Asteroid"}
    return {f'"{card}"' for card in set(data["deck"]) - seen}


def _marine_score_parts(view: dict[str, Any]) -> list[tuple[dict[str, int], int]]:
    return [(dict(parts), total) for parts, total in zip(view["score_parts"], view["scores"], strict=True)]


PERTURBERS["marine"] = _marine_perturb
HIDDEN_TOKENS["marine"] = _marine_hidden_tokens
SCORE_PARTS["marine"] = _marine_score_parts
NEGATIVE_COUNT_PATHS["marine"] = [
    ("round",), ("pawns", 0), ("vp", 0, "evolution"), ("vp", 0, "cards"), ("tiles", 0, "species", 0),
    ("special_pawns", "Sun", "target"),
]
