"""An Evolution bot for Ludus: feed the hungriest species, grow populations, keep the food-rich cards for food.

Upload this file as it is. Inside the sandbox `import ludus` is the SDK (engine/sdk.py in the repository).
"""
import ludus

# How to use a card when asked: growing a population feeds more mouths, so it comes first.
CARD_USE = ["population", "body", "species", "trait", "avian"]


def food_of(card):
    """Cards read "Name:food", e.g. "Horns:4"."""
    return int(str(card).rsplit(":", 1)[-1])


def hunger(view, position):
    """How many more food tokens my species at this position could eat."""
    me = view["seats"][view["you"]]
    species = me["species"][position] if position < len(me["species"]) else {}
    return species.get("population", 0) - species.get("food", 0)


def act(view, decision):
    kind, options = decision["kind"], decision["options"]
    if kind == "food_card":  # the face-down card that adds food to the watering hole
        return max(range(len(options)), key=lambda i: food_of(options[i]))
    if kind == "play":  # play a card rather than finish, while there are cards to play
        return next((i for i, o in enumerate(options) if o != "done"), 0)
    if kind == "card_use":
        return min(range(len(options)), key=lambda i: CARD_USE.index(options[i]) if options[i] in CARD_USE else 99)
    if kind == "feed":  # [species position, food source], or "pass", or an event card: ["dive_bomb", "before", card]
        feeds = [i for i, o in enumerate(options) if isinstance(o, list) and isinstance(o[0], int)]
        return max(feeds, key=lambda i: hunger(view, options[i][0]), default=0)
    return 0  # every other decision: the first option, the documented default


ludus.run(act)
