"""A Marine bot for Ludus: score the tiles where it leads, take VP cards, dominate when it can, never hurry the
Asteroid while behind. The rules and every decision kind are in docs/rules/marine.md.

Upload this file as it is. Inside the sandbox `import ludus` is the SDK (engine/sdk.py in the repository).
"""
import ludus

# The seed's Tile Scoring table: VP for the 1st, 2nd, 3rd and 4th most species on a tile.
TABLE = {"Land": [8, 4, 2, 1], "Kelp Forest": [7, 4, 2, 0], "Coral Reef": [6, 3, 2, 0], "Seamount": [5, 3, 2, 0],
         "Seagrass Meadow": [4, 2, 0, 0], "Sand Plain": [3, 2, 0, 0], "Open Ocean": [2, 1, 0, 0],
         "Hydrothermal Vent": [1, 0, 0, 0]}
FOOD_CHAIN = ["Reptiles", "Cephalopods", "Fishes", "Crustaceans"]  # ties go to the animal higher here


def my_vp(view, tile):
    """What I would score on this tile now: rank animals by species, ties up the food chain."""
    present = [s for s, n in enumerate(tile["species"]) if n > 0]
    present.sort(key=lambda s: (-tile["species"][s], FOOD_CHAIN.index(view["animals"][s])))
    me = view["you"]
    return TABLE[tile["terrain"]][present.index(me)] if me in present else 0


def tile_at(view, hex_):
    return next(t for t in view["tiles"] if t["hex"] == hex_)


def best_tile_value(view, terrain):
    """My best score on a tile of this terrain, plus a bonus where I thrive (I then take a card)."""
    me = view["you"]
    values = [my_vp(view, t) + 2 * t["thriving"][me] for t in view["tiles"] if t["terrain"] == terrain]
    return max(values, default=-1)


def place_value(view, option):
    if option[0] == "evolution":  # ["evolution", k]: space k scores a tile of markers[k - 1]
        return best_tile_value(view, view["markers"][option[1] - 1])
    return {"domination": 6, "speciation": 3, "wanderlust": 1, "migration": 0}[option[0]]


def card_value(view, card):
    if card["card"] == "Asteroid":  # ends the game at the end of the round: only when I lead
        scores = view["scores"]
        return 10 if scores[view["you"]] == max(scores) else -10
    return sum(n * {"vp": 1, "species": 1.3, "species_near": 1.3}.get(verb, 0.5) for verb, n in card["effects"])


def act(view, decision):
    kind, options = decision["kind"], decision["options"]

    def best(value):
        return max(range(len(options)), key=lambda i: value(options[i]))

    if kind == "place":
        return best(lambda o: place_value(view, o))
    if kind == "evolution_tile":  # options are tiles [q, r]
        return best(lambda o: my_vp(view, tile_at(view, o)))
    if kind == "evolution_card":  # options are slot numbers 1..k
        return best(lambda o: card_value(view, view["slots"][o - 1]))
    if kind == "dominate":  # options are element names: raise the highest target marker I can
        return best(lambda o: view["dominance"][o]["values"][view["you"]])
    if kind in ("move", "wanderlust_move"):
        return 0  # "done": keep my species where they are
    return 0  # every other decision: the first option, the documented default


ludus.run(act)
