"""What a seat may see. Hidden from a seat: the deck and reserve (counts only), other hands (counts only), other
seats' face-down traits ("?") and food cards ("?" once chosen), and other seats' bags (null) until the end."""

from __future__ import annotations

from engine.core import JSON, check_seat
from engine.evolution.cards import CARD_STR, NUM_CARDS, card_view
from engine.evolution.species import Species
from engine.evolution.state import EvolutionState
from engine.steps import deep

HIDDEN = "?"
CARD_VIEWS = [card_view(c) for c in range(NUM_CARDS)]  # copied into each view: views share no objects


def build_view(st: EvolutionState, seat: int | None) -> dict[str, JSON]:
    check_seat(seat, st.n)
    over = st.phase == "over"
    d = st.decision()
    view: dict[str, JSON] = {
        "game": "evolution",
        "you": seat,
        "num_players": st.n,
        "round": st.round,
        "phase": st.phase,
        "first_player": st.first,
        "last_round": st.last_round,
        "watering_hole": st.wh,
        "cliff": st.cliff,
        "expansions": st.options["expansions"],
        "deck_count": len(st.deck),
        "reserve_count": len(st.reserve),
        "reserve_used": st.reserve_used,
        "discard": _discard(st),
        "seats": [_seat_view(st, s, seat is None or seat == s, over) for s in range(st.n)],
        "decision": None,
    }
    if seat is None:  # the omniscient view holds the deck too, top card first
        view["deck"] = [CARD_STR[c] for c in reversed(st.deck)]
        view["reserve"] = [CARD_STR[c] for c in reversed(st.reserve)]
    if d is not None:
        shown: dict[str, JSON] = {"seat": d.seat, "kind": d.kind, "prompt": d.prompt}
        if seat is None or seat == d.seat:
            shown["options"] = deep(list(d.options))
        view["decision"] = shown
    if over:
        parts = [st.score_parts(s) for s in range(st.n)]
        view["score_parts"] = parts
        view["scores"] = [sum(p.values()) for p in parts]
        outcome = st.outcome()
        view["outcome"] = outcome.to_dict() if outcome is not None else None
    return view


def _discard(st: EvolutionState) -> list[str]:
    """The discard pile spelled out. Between reshuffles the pile only grows, so the names kept from the last view
    (with the pile they spell) are extended rather than rebuilt."""
    pile, names = st.discard_names
    discard = st.discard
    if pile is not discard or len(names) > len(discard):
        names = []
        st.discard_names = (discard, names)
    if len(names) < len(discard):
        names += [CARD_STR[c] for c in discard[len(names):]]
    return names[:]


def _seat_view(st: EvolutionState, s: int, mine: bool, over: bool) -> dict[str, JSON]:
    food_card, hand = st.food_cards[s], st.hands[s]
    species, score = _species_views(st.rows[s], mine)
    return {
        "seat": s,
        "hand": [CARD_VIEWS[c].copy() for c in hand] if mine else None,
        "hand_count": len(hand),
        "bag": st.bags[s] if mine or over else None,
        "food_card": None if food_card is None else (CARD_STR[food_card] if mine else HIDDEN),
        "species": species,
        "public_score": score,
    }


def _species_views(row: list[Species], mine: bool) -> tuple[list[JSON], int]:
    """A row's species as its seat (`mine`) or the others see them, and its public score (one loop: views are built
    at every decision of an analysis's playouts)."""
    views: list[JSON] = []
    score = 0
    for sp in row:
        cards, hidden = sp.cards, sp.hidden
        views.append({
            "id": sp.sid,
            "traits": [*map(_NAME, cards)],
            "face_down": [*map(_NAME, hidden)] if mine else [HIDDEN] * len(hidden),
            "body_size": sp.body,
            "population": sp.pop,
            "food": sp.food,
            "fat": sp.fat,
            "upkeep": sp.upkeep,
            "avian": sp.avian,
        })
        score += sp.pop + len(cards) + len(hidden)
    return views, score


_NAME = CARD_STR.__getitem__
