"""The Marine game: metadata, options and the published setup (RULINGS "Dominant Species: Marine" (b))."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import JSON, Game, InvalidOptions, OptionSpec, State
from engine.marine import actions, evolution_action, placement  # noqa: F401 - they register the steps
from engine.marine.board import hex_corners
from engine.marine.data import (
    ANIMALS,
    ASTEROID_DEPTH,
    ASTEROID_ID,
    CENTRE_ELEMENTS,
    DECK_SIZE,
    ELEMENT_INDEX,
    ELEMENTS,
    LENGTH_REMOVED,
    MIGRATION_MOVES,
    PAWNS_PER_PLAYER,
    SLOTS,
    STANDARD_EARTH,
    START_SPECIES,
    TERRAIN_INDEX,
    TERRAINS,
    TILE_STACKS,
    TILE_SUPPLY,
)
from engine.marine.placement import draw_markers
from engine.marine.serial import state_from_dict
from engine.marine.state import MarineState
from engine.marine.step_registry import Placement


class MarineGame(Game):
    name = "marine"
    title = "Marine: Evolution & Domination"
    rules_version = "2"  # 2: the Asteroid discarded from slot 1 is `asteroid_discarded`, no longer "taken"
    min_players = 2
    max_players = 4
    options_schema = {
        "length": OptionSpec("choice", "standard", "Evolution cards removed from the 34: short 15, standard 10, "
                             "long 5, epic 0 (published)", choices=tuple(LENGTH_REMOVED)),
        "migration_moves": OptionSpec("int", MIGRATION_MOVES, "Project-defined: species a Migration action moves, "
                                      "each one tile", minimum=1, maximum=8),
        "max_rounds": OptionSpec("int", 0, "Project-defined: the game also ends after this round (0: only the "
                                 "Asteroid ends it); for quick matches and golden files", minimum=0, maximum=100),
        "reset_discard": OptionSpec("bool", True, "Project-defined: at each round's end the card in slot 1 is "
                                    "discarded and the cards slide down, so the Asteroid always comes"),
    }

    def new_state(self, num_players: int, seed: int, options: Mapping[str, JSON] | None = None) -> MarineState:
        self.check_players(num_players)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidOptions(f"seed must be an integer, got {seed!r}")
        full = self.validate_options(options)
        st = MarineState(full, seed, num_players)
        st.game = self
        setup(st)
        st.run()
        return st

    def determinize(self, seat: int, view: Mapping[str, JSON], history: Sequence[JSON], seed: int,
                    context: Mapping[str, JSON] | None = None) -> MarineState:
        from engine.marine.determinize import determinize

        return determinize(self, seat, view, history, seed, context)

    def state_from_dict(self, data: Mapping[str, Any]) -> MarineState:
        return state_from_dict(self, data)

    def balance_labels(self, state: State) -> dict[str, list[str]]:
        """Per seat: its animal, its place on the food chain among the animals in play (1: top), and how many
        element types it dominates at setup (docs/rules/marine.md, "Balance")."""
        assert isinstance(state, MarineState)
        animals = state.animals
        dominated = [sum(state.dominant(e) == seat for e in range(len(ELEMENTS))) for seat in range(state.n)]
        return {"animal": [ANIMALS[a] for a in animals],
                "food_chain_place": [str(1 + sorted(animals).index(a)) for a in animals],
                "setup_dominance": [f"{d} types" for d in dominated]}

    def at_rules_version(self, version: str) -> Game:
        if version not in RULES_VERSIONS:
            raise InvalidOptions(f"marine has no rules version {version!r}; this engine has "
                                 f"{', '.join(map(repr, RULES_VERSIONS))}")
        return RULES_VERSIONS[version]


class MarineRules1(MarineGame):
    """Rules 1, kept so that replays recorded before rules 2 verify byte for byte: the Asteroid discarded from
    slot 1 at a round's end set `asteroid_taken` (no `asteroid_discarded` key, no `asteroid_discarded` event)."""

    rules_version = "1"


def setup(st: MarineState) -> None:
    """Animals by seat from the seed (project-defined), the standard earth, pawns, deck, slots, stacks, markers."""
    n, seed = st.n, st.seed
    animals = list(range(4))
    random.Random(f"{seed}:animals:0").shuffle(animals)
    st.animals = animals[:n]
    st.first = random.Random(f"{seed}:first:0").randrange(n)
    for q, r, terrain in STANDARD_EARTH:
        st.add_tile((q, r), TERRAIN_INDEX[terrain])
    for corner, element in zip(hex_corners((0, 0)), CENTRE_ELEMENTS, strict=True):
        st.set_element(corner, ELEMENT_INDEX[element])
    for seat in range(n):
        st.add_species(seat, (0, 0), START_SPECIES)
    st.pawns = [PAWNS_PER_PLAYER[n]] * n
    rng = random.Random(f"{seed}:deck:0")
    cards = list(range(DECK_SIZE))
    rng.shuffle(cards)
    deck = cards[LENGTH_REMOVED[st.options["length"]]:]  # the top card is the last one
    deck.insert(rng.randrange(min(ASTEROID_DEPTH, len(deck) + 1)), ASTEROID_ID)
    st.deck = deck
    for slot in range(SLOTS):  # the first deal triggers no event (project-defined)
        st.slots[slot] = st.deck.pop() if st.deck else None
    tiles = [TERRAIN_INDEX[t] for t in TERRAINS for _ in range(TILE_SUPPLY[t])]
    random.Random(f"{seed}:tiles:0").shuffle(tiles)
    st.stacks = [tiles[i::TILE_STACKS] for i in range(TILE_STACKS)]
    draw_markers(st)
    st.stack = [Placement(st.first, 0)]


GAME = MarineGame()
MarineState.game = GAME
RULES_VERSIONS: dict[str, MarineGame] = {"1": MarineRules1(), GAME.rules_version: GAME}

