"""Cards as data: the trait names, their bits, the card catalogue and the deck printings (rulings 2 and 3).

A card is an int id into a fixed catalogue of every (name, food value) pair, so that the engine moves small ints
around. Outside the engine a card is spelled "Name:food", e.g. "Carnivore:3" or "Ambush:-2".
"""

from __future__ import annotations

TRAITS: tuple[str, ...] = (
    "Carnivore", "Ambush", "Burrowing", "Climbing", "Cooperation", "Defensive Herding", "Fat Tissue", "Fertile",
    "Foraging", "Hard Shell", "Horns", "Intelligence", "Long Neck", "Pack Hunting", "Scavenger", "Symbiosis",
    "Warning Call",
    # Flight
    "Flight", "Brood Parasite", "Nesting", "Camouflage", "Good Eyesight",
    # Flight events: discarded for an effect, never played as traits (ruling 3, 11)
    "Dive Bomb", "Seed Dispersal",
)
KIND: dict[str, int] = {name: i for i, name in enumerate(TRAITS)}
BIT: dict[str, int] = {name: 1 << i for i, name in enumerate(TRAITS)}

CARNIVORE = BIT["Carnivore"]
AMBUSH = BIT["Ambush"]
BURROWING = BIT["Burrowing"]
CLIMBING = BIT["Climbing"]
COOPERATION = BIT["Cooperation"]
HERDING = BIT["Defensive Herding"]
FAT_TISSUE = BIT["Fat Tissue"]
FERTILE = BIT["Fertile"]
FORAGING = BIT["Foraging"]
HARD_SHELL = BIT["Hard Shell"]
HORNS = BIT["Horns"]
INTELLIGENCE = BIT["Intelligence"]
LONG_NECK = BIT["Long Neck"]
PACK_HUNTING = BIT["Pack Hunting"]
SCAVENGER = BIT["Scavenger"]
SYMBIOSIS = BIT["Symbiosis"]
WARNING_CALL = BIT["Warning Call"]
FLIGHT = BIT["Flight"]
BROOD_PARASITE = BIT["Brood Parasite"]
NESTING = BIT["Nesting"]
CAMOUFLAGE = BIT["Camouflage"]
GOOD_EYESIGHT = BIT["Good Eyesight"]
EVENT_BITS = BIT["Dive Bomb"] | BIT["Seed Dispersal"]

# The food value range the catalogue covers; every printing stays inside it.
FOOD_MIN, FOOD_MAX = -3, 9
_SPAN = FOOD_MAX - FOOD_MIN + 1

CARD_KIND: list[int] = []
CARD_FOOD: list[int] = []
CARD_BIT: list[int] = []
CARD_STR: list[str] = []
for _kind, _name in enumerate(TRAITS):
    for _food in range(FOOD_MIN, FOOD_MAX + 1):
        CARD_KIND.append(_kind)
        CARD_FOOD.append(_food)
        CARD_BIT.append(1 << _kind)
        CARD_STR.append(f"{_name}:{_food}")
CARD_ID: dict[str, int] = {s: i for i, s in enumerate(CARD_STR)}
IS_EVENT: list[bool] = [bool(b & EVENT_BITS) for b in CARD_BIT]
NUM_CARDS = len(CARD_STR)


def card_id(name: str, food: int) -> int:
    return KIND[name] * _SPAN + food - FOOD_MIN


FLIGHT_CARD = card_id("Flight", 0)  # the 12 Flight cards beside the deck; their food value never matters
DIVE_BOMB = KIND["Dive Bomb"]
SEED_DISPERSAL = KIND["Seed Dispersal"]
MAX_AVIAN = 12  # ruling 7: twelve avian boards


def parse_card(text: object) -> int:
    """The card id for "Name:food" (or a bare "Name", food 0); raises ValueError naming the bad card."""
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string like 'Carnivore:3', got {text!r}")
    if text in CARD_ID:
        return CARD_ID[text]
    if text in KIND:
        return card_id(text, 0)
    raise ValueError(f"unknown card {text!r}; cards are spelled 'Name:food' with food {FOOD_MIN}..{FOOD_MAX}")


# Printings: trait name -> the food values of its cards. "standard" is ruling 2 (base) and ruling 3 (Flight);
# "short" keeps the same mix at about half the size, for quick games and tests.
_SMALL = (1, 2, 3, 3, 4, 4, 5)
STANDARD_BASE: dict[str, tuple[int, ...]] = {
    "Carnivore": (0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 6),
    "Ambush": (-3, -2, -1, 0, 1, 2, 3),
    "Pack Hunting": (-3, -2, -1, 0, 1, 2, 3),
    "Burrowing": _SMALL, "Climbing": _SMALL, "Hard Shell": _SMALL, "Horns": _SMALL, "Symbiosis": _SMALL,
    "Warning Call": _SMALL,
    "Cooperation": (0, 3, 3, 4, 4, 5, 5),
    "Defensive Herding": (2, 3, 4, 5, 6, 7, 8),
    "Fat Tissue": (-1, 0, 3, 4, 4, 5, 5),
    "Fertile": (2, 3, 4, 5, 6, 6, 7), "Foraging": (2, 3, 4, 5, 6, 6, 7), "Scavenger": (2, 3, 4, 5, 6, 6, 7),
    "Intelligence": (-2, -1, 0, 4, 5, 6, 7),
    "Long Neck": (3, 4, 5, 6, 7, 8, 9),
}
STANDARD_FLIGHT: dict[str, tuple[int, ...]] = {
    "Brood Parasite": (0, 1, 2, 2, 3, 3, 4, 5),
    "Nesting": (2, 3, 4, 4, 5, 5, 6, 7),
    "Camouflage": (1, 2, 3, 3, 4, 4, 5, 5, 6),
    "Good Eyesight": (-1, 0, 1, 2, 3, 3, 4, 4, 5),
    "Dive Bomb": (1, 2, 3, 3, 4, 4, 5),
    "Seed Dispersal": (2, 3, 4, 4, 5, 6, 7),
}


def _halve(printing: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    return {name: values[::2] for name, values in printing.items()}


PRINTINGS: dict[str, tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]] = {
    "standard": (STANDARD_BASE, STANDARD_FLIGHT),
    "short": (_halve(STANDARD_BASE), _halve(STANDARD_FLIGHT)),
}


def build_deck(printing: str, flight: bool) -> list[int]:
    """The unshuffled deck of a printing, in catalogue order; with Flight its traits and events join it."""
    base, extra = PRINTINGS[printing]
    parts = [base, extra] if flight else [base]
    return [card_id(name, food) for part in parts for name in TRAITS if name in part for food in part[name]]


def card_view(cid: int) -> dict[str, object]:
    return {"card": CARD_STR[cid], "name": TRAITS[CARD_KIND[cid]], "food": CARD_FOOD[cid]}
