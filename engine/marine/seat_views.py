"""What a seat may see: everything but the order of the Evolution draw pile (a count) and the Wanderlust tile stacks
below their top tiles (counts); view(None) adds both. The seed, which fixes later terrain-marker draws, is hidden."""

from __future__ import annotations

from engine.core import JSON, check_seat
from engine.marine.data import ANIMALS, CARD_EFFECTS, CARD_EVENTS, CARD_NAMES, ELEMENTS, TERRAINS
from engine.marine.state import MarineState
from engine.steps import deep


def card_view(card: int | None) -> JSON:
    if card is None:
        return None
    events = CARD_EVENTS[card]  # most cards have none: an empty list without a comprehension is cheaper
    return {"card": CARD_NAMES[card], "effects": [[*e] for e in CARD_EFFECTS[card]],
            "event": [[*e] for e in events] if events else []}


def build_view(st: MarineState, seat: int | None) -> dict[str, JSON]:
    check_seat(seat, st.n)
    d = st.decision()
    parts = [st.score_parts(s) for s in range(st.n)]
    values, leaders = st.dominance()
    species, thriving, known = st.species, st.thriving, st._thriving
    view: dict[str, JSON] = {
        "game": "marine",
        "you": seat,
        "num_players": st.n,
        "round": st.round,
        "phase": st.phase,
        "first_player": st.first,
        "animals": [ANIMALS[a] for a in st.animals],
        "tiles": [{"hex": [q, r], "terrain": name, "species": species[h][:],
                   "thriving": (known.get(h) or thriving(h))[:]} for h, q, r, name in st.tile_rows()],
        "elements": list(map(list, st.element_rows())),
        "dominance": {name: {"values": values[e][:], "dominant": leaders[e]} for e, name in enumerate(ELEMENTS)},
        "special_pawns": {ELEMENTS[e]: sp.to_dict() for e, sp in enumerate(st.special)},
        "pawns": st.pawns[:],
        "species_supply": [st.supply(s) for s in range(st.n)],
        "display": {space: [s, pawn] for space, (s, pawn) in sorted(st.display.items())},
        "markers": [TERRAINS[m] for m in st.markers],
        "slots": [card_view(c) for c in st.slots],
        "discard": [CARD_NAMES[c] for c in st.discard],
        "deck_count": len(st.deck),
        "asteroid_taken": st.asteroid_taken,
        **({"asteroid_discarded": st.asteroid_discarded} if st.names_the_discard() else {}),
        "tile_stacks": [{"top": TERRAINS[s[-1]] if s else None, "count": len(s)} for s in st.stacks],
        "score_parts": parts,
        "scores": [sum(p.values()) for p in parts],
        "decision": None,
    }
    if seat is None:
        view["deck"] = [CARD_NAMES[c] for c in reversed(st.deck)]
        view["tile_stacks_full"] = [[TERRAINS[t] for t in reversed(s)] for s in st.stacks]
    if d is not None:
        shown: dict[str, JSON] = {"seat": d.seat, "kind": d.kind, "prompt": d.prompt}
        if seat is None or seat == d.seat:
            shown["options"] = deep(list(d.options))
        view["decision"] = shown
    outcome = st.outcome()
    if outcome is not None:
        view["outcome"] = outcome.to_dict()
    return view
