"""What a seat may see: everything but the order of the Evolution draw pile (a count) and the Wanderlust tile stacks
below their top tiles (counts); view(None) adds both. The seed, which fixes later terrain-marker draws, is hidden."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.core import JSON, check_seat
from engine.marine.data import ANIMALS, CARD_EFFECTS, CARD_EVENTS, CARD_NAMES, ELEMENTS, TERRAINS
from engine.protocol import patch_since, replace_member, view_patch
from engine.steps import deep

if TYPE_CHECKING:  # the state imports this module: its views and patches are its methods' (state.py)
    from engine.marine.state import MarineState


def card_view(card: int | None) -> JSON:
    if card is None:
        return None
    events = CARD_EVENTS[card]  # most cards have none: an empty list without a comprehension is cheaper
    return {"card": CARD_NAMES[card], "effects": [[*e] for e in CARD_EFFECTS[card]],
            "event": [[*e] for e in events] if events else []}


def build_view(st: MarineState, seat: int | None, tiles: list[JSON] | None = None) -> dict[str, JSON]:
    """The view; with `tiles`, that list as its tiles (seat_patch's, already brought up to date)."""
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
        "tiles": tiles if tiles is not None else [
            {"hex": [q, r], "terrain": name, "species": species[h][:], "thriving": (known.get(h) or thriving(h))[:]}
            for h, q, r, name in st.tile_rows()],
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


class _Sent:
    """What seat_patch sent a seat last: the view, and the tile rows (MarineState.tile_rows) its tiles show."""

    __slots__ = ("view", "rows")

    def __init__(self, st: MarineState, view: dict[str, JSON]) -> None:
        self.view, self.rows = view, st.tile_rows()


def seat_patch(st: MarineState, seat: int, sent: Any, max_ops: int) -> tuple[dict[str, JSON],
                                                                           list[dict[str, JSON]] | None, Any]:
    """MarineState.seat_patch (State.seat_patch says what it returns). The tiles, most of a view, are not built and
    compared whole while the board keeps its tiles (the same tile_rows): each tile's species and thriving lists are
    compared with the state's and replaced where they differ, in the tiles list kept from the last view. A changed
    decision is replaced whole. The rest of the view is built (with those tiles) and compared with the last view
    (protocol.view_patch)."""
    check_seat(seat, st.n)
    if sent is None or st.phase == "over" or st.tile_rows() is not sent.rows:
        view = build_view(st, seat)
        return view, patch_since(None if sent is None else sent.view, view, max_ops), _Sent(st, view)
    ops: list[dict[str, JSON]] = []
    tiles: list[Any] = sent.view["tiles"]
    species, thriving, known = st.species, st.thriving, st._thriving
    for i, (h, _q, _r, _name) in enumerate(sent.rows):
        tile = tiles[i]
        if tile["species"] != species[h]:
            replace_member(tile, "species", species[h][:], f"/tiles/{i}/species", ops)
        shown = known.get(h) or thriving(h)
        if tile["thriving"] != shown:
            replace_member(tile, "thriving", shown[:], f"/tiles/{i}/thriving", ops)
    view = build_view(st, seat, tiles)
    if view["decision"] != sent.view["decision"]:  # replaced whole: about as many bytes as a diff, and cheaper
        replace_member(sent.view, "decision", view["decision"], "/decision", ops)
    view_patch(sent.view, view, "", ops)  # the tiles are one list in both, and the decision now one object: equal
    sent.view = view
    return view, (ops if len(ops) <= max_ops else None), sent
