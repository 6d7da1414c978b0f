"""What no seat may see. resample: a state with the unseen cards dealt again (State.resample); perturb_hidden: for
the conformance suite, a copy of a state dict that differs only in what `seat` cannot see."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from engine.core import check_seed
from engine.evolution.cards import CARD_BIT, EVENT_BITS, FLIGHT, parse_card

if TYPE_CHECKING:
    from engine.evolution.state import EvolutionState


def resample(st: EvolutionState, seed: int) -> EvolutionState:
    """The deck and the reserve hold the only cards no seat has seen: deal them again between the two (each keeps
    its size), and reseed the later reshuffles of the discard pile. Hands, food cards and face-down traits have
    been seen by their seats and stay."""
    check_seed(seed)
    other = st.clone()
    unseen = sorted(other.deck + other.reserve)  # from a fixed order: the new deal tells nothing of the old one
    random.Random(f"{seed}:resample").shuffle(unseen)
    size = len(other.deck)
    other.deck, other.reserve = unseen[:size], unseen[size:]
    other.seed = seed
    return other


def perturb_hidden(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Reshuffle the cards seat cannot see (deck, reserve, other hands and food cards) among their places, swap
    some of other seats' face-down traits with them, change other seats' bags before the end, and the seed."""
    others = [s for s in range(len(data["seats"])) if s != seat]
    slots: list[tuple[list[Any], int]] = []
    for key in ("deck", "reserve"):
        slots += [(data[key], i) for i in range(len(data[key]))]
    for s in others:
        hand = data["seats"][s]["hand"]
        slots += [(hand, i) for i in range(len(hand))]
    cards = [where[i] for where, i in slots]
    rng.shuffle(cards)
    for (where, i), card in zip(slots, cards, strict=True):
        where[i] = card
    for s in others:
        _swap_face_down(data["seats"][s], slots, rng, _cards_in_play(data, s))
        seat_data = data["seats"][s]
        if seat_data.get("food_card") is not None and slots:
            where, i = rng.choice(slots)
            where[i], seat_data["food_card"] = seat_data["food_card"], where[i]
        if data.get("phase") != "over":
            seat_data["bag"] = seat_data.get("bag", 0) + rng.randrange(3)
    for s in others:
        data["seats"][s]["hand"].sort(key=parse_card)
    data["seed"] = rng.randrange(1 << 30)  # the seed fixes every later shuffle: no seat may see it
    return data


def _cards_in_play(data: dict[str, Any], seat: int) -> set[int]:
    """Trait bits of cards the seat is playing right now (held in pending steps): a face-down card of the same
    trait would change which of its species may take that card."""
    steps = data.get("stack", [])
    return {CARD_BIT[parse_card(a)] for t in steps if len(t) > 1 and t[1] == seat for a in t[2:]
            if isinstance(a, str) and ":" in a}


def _swap_face_down(seat_data: dict[str, Any], slots: list[tuple[list[Any], int]], rng: random.Random,
                    playing: set[int]) -> None:
    for sp in seat_data["species"]:
        down = sp.get("face_down", [])
        for j in range(len(down)):
            if not slots:
                return
            where, i = rng.choice(slots)
            bit = CARD_BIT[parse_card(where[i])]
            kept = [CARD_BIT[parse_card(c)] for c in sp["traits"] + down[:j] + down[j + 1:]]
            if bit & (EVENT_BITS | FLIGHT) or bit in kept or bit in playing:
                continue
            where[i], down[j] = down[j], where[i]
