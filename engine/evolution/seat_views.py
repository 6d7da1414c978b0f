"""What a seat may see. Hidden from a seat: the deck and reserve (counts only), other hands (counts only), other
seats' face-down traits ("?") and food cards ("?" once chosen), and other seats' bags (null) until the end."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.core import JSON, check_seat
from engine.evolution.cards import CARD_STR, NUM_CARDS, card_view
from engine.evolution.species import Species
from engine.protocol import patch_since, replace_member, view_patch
from engine.steps import deep

if TYPE_CHECKING:  # the state imports this module: its views and patches are its methods' (state.py)
    from engine.evolution.state import EvolutionState

HIDDEN = "?"
CARD_VIEWS = [card_view(c) for c in range(NUM_CARDS)]  # copied into each view: views share no objects


def build_view(st: EvolutionState, seat: int | None) -> dict[str, JSON]:
    check_seat(seat, st.n)
    over = st.phase == "over"
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
    view["decision"] = _decision_view(st, seat)
    if over:
        parts = [st.score_parts(s) for s in range(st.n)]
        view["score_parts"] = parts
        view["scores"] = [sum(p.values()) for p in parts]
        outcome = st.outcome()
        view["outcome"] = outcome.to_dict() if outcome is not None else None
    return view


class _Sent:
    """What seat_patch sent a seat last: the view (its own, kept equal to the seat's view by applying each patch to
    it), and the state's card lists that view was built from (compared as lists: a card view shows their names), and
    the discard pile's list and length."""

    __slots__ = ("view", "hands", "cards", "hidden", "pile", "piled")

    def __init__(self, st: EvolutionState, view: dict[str, JSON]) -> None:
        self.view = view
        self.hands = [hand[:] for hand in st.hands]
        self.cards = [[sp.cards[:] for sp in row] for row in st.rows]
        self.hidden = [[sp.hidden[:] for sp in row] for row in st.rows]
        self.pile, self.piled = st.discard, len(st.discard)


def seat_patch(st: EvolutionState, seat: int, sent: Any, max_ops: int) -> tuple[dict[str, JSON],
                                                                              list[dict[str, JSON]] | None, Any]:
    """EvolutionState.seat_patch (State.seat_patch says what it returns). The view is not built and compared whole:
    each value of the last view sent is compared with the state's own. A changed value is replaced where it is (a
    species' own values one by one, the decision whole); a changed list (a hand, a species' cards, the discard pile)
    is built again and compared with what was sent (protocol.view_patch at its path). The patch is applied to the
    view kept in `sent`, which so stays the seat's view. The first view, and the end of the game (which adds the
    scores), are built and compared whole."""
    check_seat(seat, st.n)
    if sent is None or st.phase == "over":
        view = build_view(st, seat)
        return view, patch_since(None if sent is None else sent.view, view, max_ops), _Sent(st, view)
    ops: list[dict[str, JSON]] = []
    view = sent.view
    for key, value in (("round", st.round), ("phase", st.phase), ("first_player", st.first),
                       ("last_round", st.last_round), ("watering_hole", st.wh), ("cliff", st.cliff),
                       ("deck_count", len(st.deck)), ("reserve_count", len(st.reserve)),
                       ("reserve_used", st.reserve_used)):
        if view[key] != value:
            replace_member(view, key, value, f"/{key}", ops)
    pile = st.discard
    if pile is not sent.pile or len(pile) != sent.piled:  # between reshuffles (a new list) it only grows
        if pile is sent.pile and len(pile) > sent.piled:  # the cards added, as a diff would add them, alone
            shown = view["discard"]
            for name in map(CARD_STR.__getitem__, pile[sent.piled:]):
                shown.append(name)
                ops.append({"op": "add", "path": "/discard/-", "value": name})
        else:
            _patch_part(view, "discard", _discard(st), ops)
        sent.pile, sent.piled = pile, len(pile)
    decision = _decision_view(st, seat)
    if view["decision"] != decision:  # replaced whole: as few bytes as a diff would take, and cheaper to make
        replace_member(view, "decision", decision, "/decision", ops)
    for s, seen in enumerate(view["seats"]):
        _seat_patch(st, s, s == seat, seen, sent, ops)
    return view, (ops if len(ops) <= max_ops else None), sent


def _patch_part(view: dict[str, Any], key: str, part: JSON, ops: list[dict[str, JSON]]) -> None:
    if view[key] != part:
        view_patch(view[key], part, f"/{key}", ops)
        view[key] = part


def _seat_patch(st: EvolutionState, s: int, mine: bool, seen: dict[str, Any], sent: _Sent,
                ops: list[dict[str, JSON]]) -> None:
    """seat_patch's operations for seat s's part of the view: `seen`, the part as sent last, brought up to date. The
    hot loop of a sandboxed match (every seat at every decision): its few values are compared one by one."""
    path, hand, row = f"/seats/{s}", st.hands[s], st.rows[s]
    if mine and hand != sent.hands[s]:
        shown = _hand_view(hand)
        view_patch(seen["hand"], shown, f"{path}/hand", ops)
        seen["hand"], sent.hands[s] = shown, hand[:]
    if seen["hand_count"] != len(hand):
        replace_member(seen, "hand_count", len(hand), f"{path}/hand_count", ops)
    if mine and seen["bag"] != st.bags[s]:
        replace_member(seen, "bag", st.bags[s], f"{path}/bag", ops)
    card = st.food_cards[s]
    food_card = None if card is None else (CARD_STR[card] if mine else HIDDEN)
    if seen["food_card"] != food_card:
        replace_member(seen, "food_card", food_card, f"{path}/food_card", ops)
    species, cards, hidden = seen["species"], sent.cards[s], sent.hidden[s]
    changed = whole = len(row) != len(species)
    for j, sp in enumerate(row if not whole else ()):  # the same species: each compared with what its view shows
        was = species[j]
        if sp.sid != was["id"]:
            changed = whole = True
            break
        if (sp.pop != was["population"] or sp.food != was["food"] or sp.body != was["body_size"]
                or sp.fat != was["fat"] or sp.upkeep != was["upkeep"] or sp.avian != was["avian"]
                or sp.cards != cards[j] or sp.hidden != hidden[j]):
            _species_patch(sp, mine, was, cards, hidden, j, f"{path}/species/{j}/", ops)
            changed = True
    if whole:  # a species came or went: the row compared whole
        now_row, _ = _species_views(row, mine)
        view_patch(species, now_row, f"{path}/species", ops)
        seen["species"], sent.cards[s], sent.hidden[s] = now_row, [sp.cards[:] for sp in row], [
            sp.hidden[:] for sp in row]
    if changed:  # the public score counts the species' populations and cards: only they change it
        score = sum(sp.pop + len(sp.cards) + len(sp.hidden) for sp in row)
        if seen["public_score"] != score:
            replace_member(seen, "public_score", score, f"{path}/public_score", ops)


def _species_patch(sp: Species, mine: bool, was: dict[str, Any], cards: list[list[int]], hidden: list[list[int]],
                   j: int, at: str, ops: list[dict[str, JSON]]) -> None:
    """The operations for a species whose values changed: each changed value replaced where it is (a view's keys
    keep their order), rather than its view built again and compared whole."""
    for key, value in (("body_size", sp.body), ("population", sp.pop), ("food", sp.food), ("fat", sp.fat),
                       ("upkeep", sp.upkeep), ("avian", sp.avian)):
        if was[key] != value:
            replace_member(was, key, value, at + key, ops)
    if sp.cards != cards[j]:
        traits = [*map(_NAME, sp.cards)]
        view_patch(was["traits"], traits, at + "traits", ops)
        was["traits"], cards[j] = traits, sp.cards[:]
    if sp.hidden != hidden[j]:
        face_down = [*map(_NAME, sp.hidden)] if mine else [HIDDEN] * len(sp.hidden)
        view_patch(was["face_down"], face_down, at + "face_down", ops)
        was["face_down"], hidden[j] = face_down, sp.hidden[:]


def _decision_view(st: EvolutionState, seat: int | None) -> JSON:
    """The pending decision as seat sees it: its options only for the seat that takes it (and the omniscient view)."""
    d = st.decision()
    if d is None:
        return None
    shown: dict[str, JSON] = {"seat": d.seat, "kind": d.kind, "prompt": d.prompt}
    if seat is None or seat == d.seat:
        shown["options"] = deep(list(d.options))
    return shown


def _hand_view(hand: list[int]) -> list[JSON]:
    return [CARD_VIEWS[c].copy() for c in hand]


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
        "hand": _hand_view(hand) if mine else None,
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
