"""render(view): a readable text picture of a Marine view, for the text UI."""

from __future__ import annotations

from typing import Any


def render(view: dict[str, Any]) -> str:
    """A multi-line text rendering of a view from MarineState.view()."""
    animals = view["animals"]
    lines = [f"Marine - round {view['round']}, phase {view['phase']}, first player {view['first_player']}"
             + (", the Asteroid was taken: last round" if view["asteroid_taken"] else "")
             + (", the Asteroid was discarded from slot 1: game over" if view.get("asteroid_discarded") else "")]
    lines.append("Players: " + "; ".join(
        f"{s}{' (you)' if view.get('you') == s else ''} {a}: {view['scores'][s]} VP, pawns {view['pawns'][s]}, "
        f"supply {view['species_supply'][s]}" for s, a in enumerate(animals)))
    lines.append("Tiles (species per animal, * thriving; elements on the corners from the top, clockwise):")
    corners = {(e[0], e[1], e[2]): e[3] for e in view["elements"]}
    for tile in view["tiles"]:
        q, r = tile["hex"]
        around = [(q, r, "N"), (q + 1, r - 1, "S"), (q, r + 1, "N"), (q, r, "S"), (q - 1, r + 1, "N"), (q, r - 1, "S")]
        species = ", ".join(f"{animals[s][:4]} {c}{'*' if tile['thriving'][s] else ''}"
                            for s, c in enumerate(tile["species"]) if c) or "-"
        elements = " ".join(corners.get(c, ".")[:4] for c in around)
        lines.append(f"  ({tile['hex'][0]:>2},{tile['hex'][1]:>2}) {tile['terrain']:<17} [{elements}]  {species}")
    lines.append("Evolution spaces: " + ", ".join(f"{k + 1}: {t}" for k, t in enumerate(view["markers"])))
    lines.append("Action display: " + (", ".join(f"{space} <- seat {s} ({pawn})"
                                                 for space, (s, pawn) in view["display"].items()) or "empty"))
    for k, card in enumerate(view["slots"]):
        if card is None:
            lines.append(f"  slot {k + 1}: -")
        else:
            text = ", ".join(" ".join(map(str, e)) for e in card["effects"])
            event = "; event: " + ", ".join(" ".join(map(str, e)) for e in card["event"]) if card["event"] else ""
            lines.append(f"  slot {k + 1}: {card['card']} ({text or 'no effect'}{event})")
    lines.append(f"Draw pile: {view['deck_count']} cards; discard: {len(view['discard'])}; tile stacks: "
                 + ", ".join(f"{s['top'] or '-'} ({s['count']})" for s in view["tile_stacks"]))
    specials = [f"{e}: {'-' if p['controller'] is None else 'seat ' + str(p['controller'])} {p['place']}, "
                f"target {p['target']}" for e, p in view["special_pawns"].items()]
    lines.append("Special pawns: " + "; ".join(specials))
    decision = view.get("decision")
    if decision:
        lines.append(f"Waiting for seat {decision['seat']}: {decision['kind']} - {decision['prompt']}")
        for i, option in enumerate(decision.get("options", [])):
            lines.append(f"  [{i}] {option}")
    if view.get("outcome") is not None:
        for s, parts in enumerate(view["score_parts"]):
            detail = ", ".join(f"{k} {v}" for k, v in parts.items())
            lines.append(f"Seat {s} ({animals[s]}): {view['scores'][s]} VP ({detail}), "
                         f"rank {view['outcome']['ranks'][s]}")
    return "\n".join(lines)
