"""Every constant of Marine in one place: the published components (RULINGS "Dominant Species: Marine" (b)), the
seed's tile scoring table, and the project-defined data of (c), each marked [ours] so the official rules can
replace it (docs/rules/marine.md lists them all).
"""

from __future__ import annotations

# -- published (b) ------------------------------------------------------------------------------------------------

# The food chain, top to bottom: an animal's index here is its rank, and ties break towards the lower index.
ANIMALS: tuple[str, ...] = ("Reptiles", "Cephalopods", "Fishes", "Crustaceans")
ANIMAL_INDEX = {name: i for i, name in enumerate(ANIMALS)}

ELEMENTS: tuple[str, ...] = ("Algae", "Gastropods", "Plankton", "Sponges", "Sun", "Worms")
ELEMENT_INDEX = {name: i for i, name in enumerate(ELEMENTS)}

# Each animal's display shows 3 elements; an animal matches an element type shown on its display.
DISPLAYS: dict[str, tuple[str, str, str]] = {
    "Crustaceans": ("Worms", "Worms", "Algae"),
    "Fishes": ("Plankton", "Plankton", "Algae"),
    "Cephalopods": ("Gastropods", "Gastropods", "Sponges"),
    "Reptiles": ("Sun", "Sun", "Sponges"),
}
# animal index -> the element indices it matches
MATCHES: tuple[frozenset[int], ...] = tuple(
    frozenset(ELEMENT_INDEX[e] for e in DISPLAYS[a]) for a in ANIMALS)

# The 8 terrains by rank (best first).
TERRAINS: tuple[str, ...] = ("Land", "Kelp Forest", "Coral Reef", "Seamount", "Seagrass Meadow", "Sand Plain",
                             "Open Ocean", "Hydrothermal Vent")
TERRAIN_INDEX = {name: i for i, name in enumerate(TERRAINS)}

# The seed's Tile Scoring table: VP for 1st, 2nd, 3rd, 4th most species (None: no score for that place).
TILE_SCORES: dict[str, tuple[int | None, int | None, int | None, int | None]] = {
    "Land": (8, 4, 2, 1),
    "Kelp Forest": (7, 4, 2, None),
    "Coral Reef": (6, 3, 2, None),
    "Seamount": (5, 3, 2, None),
    "Seagrass Meadow": (4, 2, None, None),
    "Sand Plain": (3, 2, None, None),
    "Open Ocean": (2, 1, None, None),
    "Hydrothermal Vent": (1, None, None, None),
}
SCORE_ROWS: tuple[tuple[int | None, ...], ...] = tuple(TILE_SCORES[t] for t in TERRAINS)

# The standard earth, in axial coordinates (q, r) of pointy-top hexes. The published layout names the tiles; the
# exact positions of the arms beyond the Land and Open Ocean tiles are [ours] (docs/rules/marine.md).
# Ring order, clockwise from the north-east neighbour: Seagrass, Sand Plain, Seamount, Kelp, Land, Open Ocean.
STANDARD_EARTH: tuple[tuple[int, int, str], ...] = (
    (0, 0, "Coral Reef"),
    (1, -1, "Seagrass Meadow"), (1, 0, "Sand Plain"), (0, 1, "Seamount"),
    (-1, 1, "Kelp Forest"), (-1, 0, "Land"), (0, -1, "Open Ocean"),
    # 4 more beyond the Land tile, the outermost a Vent
    (-2, 0, "Land"), (-2, 1, "Land"), (-3, 1, "Land"), (-4, 1, "Hydrothermal Vent"),
    # 4 more beyond the Open Ocean tile, the outermost a Vent
    (0, -2, "Open Ocean"), (1, -2, "Open Ocean"), (1, -3, "Open Ocean"), (1, -4, "Hydrothermal Vent"),
)
# One element of each type on the 6 corners of the centre tile, clockwise from the top corner ([ours]: the order).
CENTRE_ELEMENTS: tuple[str, ...] = ("Sun", "Plankton", "Worms", "Algae", "Gastropods", "Sponges")
START_SPECIES = 3  # of each animal in play, on the centre tile

PAWNS_PER_PLAYER = {2: 7, 3: 5, 4: 4}

DECK_SIZE = 34
LENGTH_REMOVED = {"short": 15, "standard": 10, "long": 5, "epic": 0}
ASTEROID = "Asteroid"
ASTEROID_DEPTH = 5  # shuffled into the bottom 5 cards of the draw pile
SLOTS = 5
TERRAIN_MARKERS: tuple[str, ...] = tuple(t for t in TERRAINS for _ in range(2))  # 16, 2 per terrain
EVOLUTION_SPACES = 5

# -- project-defined (c) [ours] -------------------------------------------------------------------------------------

SPECIES_SUPPLY = 30  # species cubes per animal
# The action display, in placement-option order: (action, number of spaces). The Domination spaces are the seed's.
ACTION_SPACES: tuple[tuple[str, int], ...] = (
    ("speciation", 3), ("migration", 3), ("wanderlust", 2), ("evolution", EVOLUTION_SPACES), ("domination", 3))
# Domination space number -> the fewest players with which it is open (seed: middle 3+, right 4).
DOMINATION_MIN_PLAYERS = {1: 2, 2: 3, 3: 4}
SPECIATION_PER_TILE = 1  # species added on each tile touching the chosen element
MIGRATION_MOVES = 3  # species moved, each one tile, by a Migration action
WANDERLUST_MOVES = 2  # species each player may move onto a new Wanderlust tile
WANDERLUST_MIN_NEIGHBOURS = 2  # a new tile touches at least this many tiles (1 when no hex allows 2)
TILE_STACKS = 3
TILE_SUPPLY: dict[str, int] = {t: 3 for t in TERRAINS}  # tiles in the Wanderlust draw stacks

# Evolution cards. An effect is [verb, *args]:
#   ["vp", n]            gain n VP
#   ["species", n]       add n of your species to the scored tile
#   ["species_near", n]  add n of your species to one tile of your choice: the scored tile or one next to it
#   ["element", n]       n times: place an element of your choice on a vacant corner of the scored tile
#   ["move", n]          move up to n of your species, each to an adjacent tile
#   ["remove", n]        remove up to n rival species from the scored tile, choosing the rival each time
# Events trigger when the card is dealt (never choices; every animal in play, in food-chain order):
#   ["all_lose", terrain, n]  every animal loses n species on every tile of that terrain
#   ["all_gain", terrain, n]  every animal with species on a tile of that terrain adds n there
Effect = tuple[object, ...]
CARDS: tuple[tuple[str, tuple[Effect, ...], tuple[Effect, ...]], ...] = (
    ("Abundance", (("vp", 3),), ()),
    ("Adaptive Radiation", (("species_near", 2),), ()),
    ("Bioluminescence", (("vp", 2), ("species", 1)), ()),
    ("Brood", (("species", 2),), ()),
    ("Camouflage", (("remove", 1), ("vp", 1)), ()),
    ("Coral Spawning", (("species", 1), ("element", 1)), ()),
    ("Current", (("move", 3),), ()),
    ("Deep Dive", (("move", 2), ("species", 1)), ()),
    ("Echolocation", (("remove", 2),), ()),
    ("Filter Feeding", (("element", 1), ("vp", 2)), ()),
    ("Gyre", (("move", 2), ("vp", 1)), ()),
    ("Hunt", (("remove", 1), ("species", 1)), ()),
    ("Ink Cloud", (("remove", 1), ("move", 1)), ()),
    ("Kelp Bloom", (("species", 1),), (("all_gain", "Kelp Forest", 1),)),
    ("Mass Migration", (("move", 4),), ()),
    ("Mimicry", (("species_near", 1), ("vp", 2)), ()),
    ("Nursery", (("species_near", 2), ("vp", 1)), ()),
    ("Overfishing", (("vp", 2),), (("all_lose", "Open Ocean", 1),)),
    ("Plankton Bloom", (("element", 2),), (("all_gain", "Seagrass Meadow", 1),)),
    ("Predation", (("remove", 2), ("vp", 1)), ()),
    ("Red Tide", (("vp", 2),), (("all_lose", "Kelp Forest", 1),)),
    ("Reef Building", (("element", 1), ("species", 1)), ()),
    ("Regeneration", (("species", 3),), ()),
    ("Schooling", (("species", 2), ("move", 1)), ()),
    ("Sea Level Rise", (("element", 1),), (("all_lose", "Land", 1),)),
    ("Shell Growth", (("vp", 4),), ()),
    ("Symbiosis", (("species", 1), ("vp", 2)), ()),
    ("Territorial", (("remove", 1), ("vp", 2)), ()),
    ("Tidal Pool", (("species_near", 1), ("element", 1)), ()),
    ("Upwelling", (("vp", 1), ("species", 1)), (("all_gain", "Seamount", 1),)),
    ("Coral Bleaching", (("species", 1),), (("all_lose", "Coral Reef", 1),)),
    ("Vent Colony", (("species", 2),), (("all_gain", "Hydrothermal Vent", 1),)),
    ("Whale Fall", (("species_near", 2),), ()),
    ("Hydrothermal Plume", (("element", 2), ("vp", 1)), (("all_gain", "Sand Plain", 1),)),
)
CARD_NAMES: tuple[str, ...] = tuple(c[0] for c in CARDS) + (ASTEROID,)
CARD_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}
ASTEROID_ID = CARD_INDEX[ASTEROID]
CARD_EFFECTS: tuple[tuple[Effect, ...], ...] = tuple(c[1] for c in CARDS) + ((),)
CARD_EVENTS: tuple[tuple[Effect, ...], ...] = tuple(c[2] for c in CARDS) + ((),)

assert len(CARDS) == DECK_SIZE and len(set(CARD_NAMES)) == len(CARD_NAMES)
assert len(TERRAIN_MARKERS) == 16 and len(STANDARD_EARTH) == 15


def space_ids() -> tuple[str, ...]:
    """Every action space id, e.g. "speciation_1" .. "domination_3", in display order."""
    return tuple(f"{action}_{k}" for action, count in ACTION_SPACES for k in range(1, count + 1))


SPACE_IDS = space_ids()

# Every project-defined rule [ours], by the name docs/rules/marine.md marks it with ("[ours: name]"), with where it
# lives in the engine. tests/engine/marine/test_marine_rules_doc.py keeps this list and the doc in step.
PROJECT_RULES: dict[str, str] = {
    "species_supply": "30 species per animal (SPECIES_SUPPLY); a species beyond the supply is not added",
    "species_return": "a removed species goes back to its owner's supply (MarineState.remove_species)",
    "one_element_per_corner": "a corner holds at most one element (MarineState.set_element)",
    "wanderlust_tiles": "3 tiles of each terrain in 3 shuffled draw stacks (TILE_SUPPLY, TILE_STACKS)",
    "animals_from_seed": "animals dealt to seats from the seed; unused animals are not in the game",
    "earth_arms": "the hexes of the 4 tiles beyond the Land and the Ocean, the outermost a Vent (STANDARD_EARTH)",
    "centre_element_order": "the order of the 6 elements around the centre tile (CENTRE_ELEMENTS)",
    "first_deal_no_event": "the first deal of 5 cards triggers no event",
    "markers_by_rank": "the 5 terrain markers sorted by rank: Evolution space 1 holds the best terrain",
    "first_player": "the first player from the seed; the marker passes to the next seat each round",
    "placement": "one pawn per turn in seat order, resolved at once; a player who cannot place is skipped",
    "action_spaces": "3 Speciation, 3 Migration, 2 Wanderlust spaces (ACTION_SPACES)",
    "domination_needs_a_type": "a Domination space may be taken only while dominating an element type",
    "special_pawns_first": "special pawns are placed before action pawns, in element order",
    "speciation": "Speciation: one element; 1 species on each tile touching it (SPECIATION_PER_TILE)",
    "migration": "Migration: up to migration_moves species, each one tile (option migration_moves)",
    "wanderlust": "Wanderlust: a stack's top tile next to 2 tiles, an element, moves onto it (WANDERLUST_*)",
    "no_tile_no_score": "an Evolution space whose terrain has no tile on the earth scores nothing",
    "thriving": "species thrive on a tile touching an element their animal matches",
    "domination_value": "species on tiles touching the type; strictly highest dominates, ties up the food chain",
    "target_marker_up": "a Domination target marker only moves up",
    "special_pawn_use": "a special pawn in front of you is an extra pawn; placed, it stays until the retrieve",
    "round_end": "the round ends when nobody can place: pawns retrieved, markers redrawn, first player passes",
    "reset_discard": "slot 1 discarded at each round's end; the Asteroid discarded so ends the game "
                     "(option reset_discard)",
    "max_rounds": "the game also ends after round max_rounds (option max_rounds)",
    "final_scoring": "at the end every tile is scored once, then each control marker scores its target",
    "rank_ties": "equal scores rank up the food chain, so ranks never tie",
    "evolution_cards": "the 34 cards' effects and events (CARDS)",
    "forced_steps": "a step with one option is taken for the player, one with none is skipped",
    "decision_shape": "one decision per move ([from, to]) and per Speciation (the element's corner)",
}
