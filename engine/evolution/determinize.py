"""A seat's determinization (Game.determinize): a full state from what one seat has seen, with the cards it has
not seen dealt at random from what remains; and the seat context (State.seat_context) it needs beside the view.

What a seat does not see (docs/rules/evolution.md, "What is hidden"): the deck and the reserve, other hands, other
seats' food cards and face-down traits, other seats' bags until the end, and the seed of later shuffles.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core import JSON, InvalidState
from engine.evolution.cards import CARD_BIT, CARD_STR, EVENT_BITS, FLIGHT, build_deck, parse_card
from engine.evolution.step_registry import STEPS
from engine.search import determinize_with
from engine.steps import deep

if TYPE_CHECKING:
    from engine.evolution.game import EvolutionGame
    from engine.evolution.state import EvolutionState

HIDDEN = "?"
_CARD_STEPS = ("ask_use", "ask_trait_species", "ask_replace")  # steps that hold the card being played, last arg


def seat_context(st: EvolutionState, seat: int) -> dict[str, JSON]:
    """The options, the steps still to run (a card another seat is playing shows as "?") and the feeding-turn
    counters; all of it follows from public actions, none of it from hidden cards."""
    stack = []
    for step in st.stack:
        item = STEPS.to_json(step)
        if item[0] in _CARD_STEPS and item[1] != seat:
            item[-1] = HIDDEN
        stack.append(item)
    return {"game": "evolution", "rules_version": st.game.rules_version, "options": dict(st.options),
            "stack": stack, "passes": st.passes, "acted": st.acted, "negated": list(st.negated),
            "next_species_id": st.next_sid}


def determinize(game: EvolutionGame, seat: int, view: Mapping[str, Any], history: Sequence[Any], seed: int,
                context: Mapping[str, Any] | None) -> EvolutionState:
    return determinize_with(lambda: _determinize(game, seat, view, history, seed, context or {}), "evolution", seat,
                            view, history, seed, context)


def _determinize(game: EvolutionGame, seat: int, view: Mapping[str, Any], history: Sequence[Any], seed: int,
                 context: Mapping[str, Any]) -> EvolutionState:
    rng = random.Random(f"{seed}:determinize")
    seats = view["seats"]
    pool = _unseen_cards(seat, view, context)
    rng.shuffle(pool)
    stack = deep(list(context["stack"]))
    for item in stack:  # a card another seat is playing, hidden from this one
        if item[-1] == HIDDEN:
            item[-1] = _take(pool, lambda c: True, "a card another seat is playing")
    rows = [_seat_dict(seat, s, seats[s], stack, pool, history, view["phase"] == "over") for s in range(len(seats))]
    hands = [_deal(pool, seats[s]["hand_count"]) if s != seat else rows[s]["hand"] for s in range(len(seats))]
    for s, hand in enumerate(hands):
        rows[s]["hand"] = sorted(hand, key=parse_card)
    reserve = _deal(pool, view["reserve_count"])
    deck = _deal(pool, view["deck_count"])
    if pool:
        raise ValueError(f"the view leaves {len(pool)} card(s) of the deck unaccounted for: {sorted(pool)[:5]}...")
    data = {"game": "evolution", "options": dict(context["options"]), "seed": rng.randrange(1 << 30),
            "num_players": len(seats), "round": view["round"], "phase": view["phase"],
            "first_player": view["first_player"], "last_round": view["last_round"],
            "watering_hole": view["watering_hole"], "cliff": view["cliff"], "deck": deck, "reserve": reserve,
            "reserve_used": view["reserve_used"], "discard": list(view["discard"]), "seats": rows,
            "next_species_id": context["next_species_id"], "passes": context["passes"], "acted": context["acted"],
            "negated": list(context["negated"]), "stack": stack}
    try:
        st = game.state_from_dict(data)
    except InvalidState as exc:
        raise ValueError(f"the view and context describe no state of the game: {exc}") from None
    _check_decision(st, view)
    return st


def _unseen_cards(seat: int, view: Mapping[str, Any], context: Mapping[str, Any]) -> list[str]:
    """The deck of the match minus every card this seat sees: its hand and food card, every face-up trait, its own
    face-down traits and the card it is playing, the discard pile; sorted, so the deal tells nothing of order."""
    me = view["seats"][seat]
    seen = [c["card"] for c in me["hand"]] + list(view["discard"])
    if me["food_card"] is not None:
        seen.append(me["food_card"])
    for s in view["seats"]:
        for sp in s["species"]:
            seen += [c for c in sp["traits"] + sp["face_down"] if c != HIDDEN]
    seen += [t[-1] for t in context["stack"] if t[0] in _CARD_STEPS and t[-1] != HIDDEN]
    counts = dict(_deck_counts(context["options"]["deck"], context["options"]["expansions"] == "flight"))
    for card in seen:
        cid = parse_card(card)
        if CARD_BIT[cid] == FLIGHT:
            continue  # the Flight cards come with avian species from beside the deck (ruling 3)
        if not counts.get(cid):
            raise ValueError(f"the view shows {card!r} more often than the {context['options']['deck']!r} deck has it")
        counts[cid] -= 1
    return [CARD_STR[cid] for cid, n in sorted(counts.items()) for _ in range(n)]


@functools.cache
def _deck_counts(printing: str, flight: bool) -> tuple[tuple[int, int], ...]:
    """(card, copies) of a printing's deck, sorted; a printing that does not exist raises KeyError."""
    counts: dict[int, int] = {}
    for c in build_deck(printing, flight):
        counts[c] = counts.get(c, 0) + 1
    return tuple(sorted(counts.items()))


def _seat_dict(seat: int, s: int, shown: Mapping[str, Any], stack: list[Any], pool: list[str],
               history: Sequence[Any], over: bool) -> dict[str, Any]:
    """One seat of the state: this seat's as its view shows it; another's with its food card and face-down traits
    dealt from the pool (a face-down trait of a kind its species may take) and its bag estimated."""
    if s == seat:
        return {"hand": [c["card"] for c in shown["hand"]], "bag": shown["bag"], "food_card": shown["food_card"],
                "species": [dict(sp) for sp in shown["species"]]}
    playing = {CARD_BIT[parse_card(t[-1])] for t in stack if t[0] in _CARD_STEPS and t[1] == s}
    species = []
    for sp in shown["species"]:
        sp = dict(sp)
        kinds = playing | {CARD_BIT[parse_card(c)] for c in sp["traits"]}
        down = []
        for _ in sp["face_down"]:
            card = _take(pool, lambda c, k=kinds: _may_lie_face_down(c, k), f"a face-down trait of seat {s}")
            kinds.add(CARD_BIT[parse_card(card)])
            down.append(card)
        sp["face_down"] = down
        species.append(sp)
    food_card = None if shown["food_card"] is None else _take(pool, lambda c: True, f"seat {s}'s food card")
    bag = shown["bag"] if over else _bag_estimate(s, shown, history)
    return {"hand": [], "bag": bag, "food_card": food_card, "species": species}


def _may_lie_face_down(card: str, kinds: set[int]) -> bool:
    """A trait card (no event, no Flight: rulings 7, 11) of a kind the species does not have (ruling 9)."""
    bit = CARD_BIT[parse_card(card)]
    return not bit & (EVENT_BITS | FLIGHT) and bit not in kinds


def _bag_estimate(s: int, shown: Mapping[str, Any], history: Sequence[Any]) -> int:
    """Another seat's bag is hidden until the end: estimated as the food its species took (the history's food events)
    less what is on them now. A take fills an avian species' upkeep first (ruling 14), which goes back to the bank:
    each round, takes by a species that is avian now count only beyond its Body Size. An estimate, since the rows
    of earlier rounds are not in the view."""
    row = shown["species"]
    taken, upkeep = 0, [0] * len(row)
    for e in history:  # an event that is no object raises AttributeError: determinize_with names it
        kind = e.get("event")
        if kind == "feeding_over":
            upkeep = [0] * len(row)
        elif kind == "food" and e.get("seat") == s:
            amount, i = int(e.get("amount", 0)), e.get("species")
            if isinstance(i, int) and 0 <= i < len(row) and row[i]["avian"]:
                up = min(amount, max(row[i]["body_size"] - upkeep[i], 0))
                upkeep[i] += up
                amount -= up
            taken += amount
    return max(0, taken - sum(int(sp["food"]) for sp in row))


def _take(pool: list[str], fits: Any, what: str) -> str:
    for i, card in enumerate(pool):
        if fits(card):
            return pool.pop(i)
    raise ValueError(f"no unseen card is left for {what}")


def _deal(pool: list[str], count: Any) -> list[str]:
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= len(pool):
        raise ValueError(f"the view counts {count!r} card(s) where {len(pool)} unseen card(s) are left")
    dealt = pool[:count]
    del pool[:count]
    return dealt


def _check_decision(st: EvolutionState, view: Mapping[str, Any]) -> None:
    d, shown = st.decision(), view["decision"]
    if d is None or d.kind != shown["kind"] or list(d.options) != shown["options"]:
        raise ValueError(f"the context does not rebuild the view's decision {shown['kind']!r} "
                         f"(got {d.kind if d else None!r})")

