"""render(view): a readable text picture of a view, for the text UI."""

from __future__ import annotations

from typing import Any


def render(view: dict[str, Any]) -> str:
    """A multi-line text rendering of a view from EvolutionState.view()."""
    lines = [
        f"Evolution - round {view['round']}, phase {view['phase']}, first player {view['first_player']}"
        + (f", last round {view['last_round']}" if view.get("last_round") else ""),
        f"Watering Hole: {view['watering_hole']}   Cliff: {view['cliff']}   "
        f"Deck: {view['deck_count']}   Reserve: {view['reserve_count']}   Discard: {len(view['discard'])}",
    ]
    for seat in view["seats"]:
        lines += _seat_lines(seat, view)
    decision = view.get("decision")
    if decision:
        lines.append(f"Waiting for seat {decision['seat']}: {decision['kind']} - {decision['prompt']}")
        for i, option in enumerate(decision.get("options", [])):
            lines.append(f"  [{i}] {option}")
    if view.get("scores") is not None:
        for s, (parts, total) in enumerate(zip(view["score_parts"], view["scores"], strict=True)):
            lines.append(f"Seat {s}: {total} points (food {parts['food']}, population {parts['population']}, "
                         f"traits {parts['traits']})")
    return "\n".join(lines)


def _seat_lines(seat: dict[str, Any], view: dict[str, Any]) -> list[str]:
    you = " (you)" if view.get("you") == seat["seat"] else ""
    bag = "?" if seat["bag"] is None else seat["bag"]
    head = f"Seat {seat['seat']}{you}: hand {seat['hand_count']}, bag {bag}"
    if seat["food_card"] is not None:
        head += f", food card {seat['food_card']}"
    lines = [head]
    if seat["hand"] is not None:
        lines.append("  hand: " + (", ".join(c["card"] for c in seat["hand"]) or "-"))
    for i, sp in enumerate(seat["species"]):
        kind = "avian" if sp["avian"] else "land"
        traits = ", ".join(sp["traits"] + [f"[{t}]" for t in sp["face_down"]]) or "no traits"
        food = f"food {sp['food']}/{sp['population']}"
        if sp["avian"]:
            food += f", upkeep {sp['upkeep']}/{sp['body_size']}"
        if sp["fat"]:
            food += f", fat {sp['fat']}"
        lines.append(f"  {i}. {kind} body {sp['body_size']} pop {sp['population']} ({food}) - {traits}")
    return lines
