"""The Marine state: the earth, the action display, the cards, and the step stack that drives the rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import JSON, Decision, Game, Outcome, check_seat
from engine.marine import seat_views
from engine.marine.board import Corner, Hex, corner_hexes, hex_corners, is_thriving, neighbours, score_tile
from engine.marine.data import (
    ANIMALS,
    ASTEROID_ID,
    CARD_EVENTS,
    CARD_NAMES,
    ELEMENTS,
    SLOTS,
    SPECIES_SUPPLY,
    TERRAIN_INDEX,
    TERRAINS,
)
from engine.marine.step_registry import STEPS
from engine.steps import StepState, Task

SETUP, READY, DISPLAY = "setup", "ready", "display"  # where a special pawn is


@dataclass(slots=True)
class SpecialPawn:
    """One element type's special pawn with its control and target markers (the seed's Domination)."""

    controller: int | None = None  # the seat holding the control marker; None while on its setup space
    place: str = SETUP  # SETUP, READY (in front of its controller, available) or DISPLAY (on the action display)
    target: int = 0  # the target marker on the VP track

    def to_dict(self) -> dict[str, JSON]:
        return {"controller": self.controller, "place": self.place, "target": self.target}

    def copy(self) -> SpecialPawn:
        return SpecialPawn(self.controller, self.place, self.target)


class MarineState(StepState):
    game: Game  # the game at its rules version (MarineGame.at_rules_version)
    steps = STEPS
    answer_empty = False  # an ask with no options is skipped: "do what is possible and skip the rest"

    def __init__(self, options: dict[str, Any], seed: int, num_players: int) -> None:
        self.options = options
        self.seed = seed
        self.n = num_players
        self.animals: list[int] = list(range(num_players))  # seat -> animal index (food-chain rank)
        self.round = 1
        self.first = 0
        self.phase = "play"
        self.terrain: dict[Hex, int] = {}
        self.species: dict[Hex, list[int]] = {}  # per seat
        self.tile_order: list[Hex] = []  # sorted
        self.elements: dict[Corner, int] = {}
        self.vp: list[list[int]] = [[0, 0, 0] for _ in range(num_players)]  # evolution, cards, final
        self.pawns = [0] * num_players
        self.display: dict[str, tuple[int, str]] = {}
        self.markers: list[int] = []
        self.deck: list[int] = []  # the top card is the last one
        self.slots: list[int | None] = [None] * SLOTS
        self.discard: list[int] = []
        self.asteroid_taken = False
        self.asteroid_discarded = False  # from slot 1 at a round's end (rules 2; rules 1 set asteroid_taken)
        self.stacks: list[list[int]] = []  # Wanderlust tile stacks; the top tile is the last one
        self.special = [SpecialPawn() for _ in ELEMENTS]  # by element index
        self.on_board = [0] * num_players
        self.stack: list[Task] = []
        self._decision: Decision | None = None
        self._events: list[JSON] = []
        self._values: list[list[int]] | None = None  # a cache: see dominance()
        self._leaders: list[int | None] | None = None
        self._types: dict[Hex, tuple[int, ...]] = {}
        self._thriving: dict[Hex, list[bool]] = {}  # a cache: see thriving()
        self._adjacent: dict[Hex, tuple[Hex, ...]] = {}
        self._tile_rows: tuple[tuple[Hex, int, int, str], ...] | None = None  # caches for the views: see tile_rows()
        self._element_rows: tuple[tuple[int, int, str, str], ...] | None = None  # see element_rows()
        self.place_cache: list[Any] | None = None  # see placement.placement

    # -- the engine contract (decision, apply and the step loop: engine/steps.py) -----------------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        return seat_views.build_view(self, seat)

    def seat_patch(self, seat: int, sent: Any, max_ops: int) -> tuple[dict[str, JSON], list[dict[str, JSON]] | None,
                                                                    Any]:
        return seat_views.seat_patch(self, seat, sent, max_ops)  # at every decision of a sandboxed seat

    def outcome(self) -> Outcome | None:
        if self.phase != "over":
            return None
        keys = [(sum(self.score_parts(s).values()), len(ANIMALS) - self.animals[s]) for s in range(self.n)]
        return Outcome.from_keys(keys)  # ties on VP go up the food chain: the key never ties

    def names_the_discard(self) -> bool:
        """Rules 2 name the Asteroid discarded from slot 1 (`asteroid_discarded`); rules 1 called it taken."""
        return self.game.rules_version != "1"

    def last_round(self) -> bool:
        return self.asteroid_taken or self.asteroid_discarded

    def to_dict(self) -> dict[str, JSON]:
        from engine.marine.serial import state_to_dict

        return state_to_dict(self)

    def clone(self) -> MarineState:
        other = MarineState.__new__(MarineState)
        other.__dict__.update(self.__dict__)
        other.options = dict(self.options)
        other.animals = self.animals[:]
        other.terrain = dict(self.terrain)
        other.species = {h: c[:] for h, c in self.species.items()}
        other.tile_order = self.tile_order[:]
        other.elements = dict(self.elements)
        other.vp = [v[:] for v in self.vp]
        other.pawns = self.pawns[:]
        other.display = dict(self.display)
        other.markers = self.markers[:]
        other.deck, other.slots, other.discard = self.deck[:], self.slots[:], self.discard[:]
        other.stacks = [s[:] for s in self.stacks]
        other.special = [s.copy() for s in self.special]
        other.on_board = self.on_board[:]
        other.stack = self.stack[:]  # steps are immutable
        other._events = []
        other._values = other._leaders = None
        other._types = {}
        other._thriving = {}
        other._adjacent = {}
        # the views' _tile_rows and _element_rows are immutable tuples: shared until either state replaces them
        other.place_cache = None
        return other

    def step_arg_ok(self, kind: str, arg: Any) -> bool:
        from engine.marine.serial import arg_ok

        return arg_ok(self, kind, arg)

    def resample(self, seed: int) -> MarineState:
        from engine.marine.hidden import resample

        return resample(self, seed)

    def scores(self) -> list[int]:
        """VP so far (control markers count only at the end, as the view's scores show)."""
        return [sum(self.score_parts(s).values()) for s in range(self.n)]

    def seat_context(self, seat: int) -> dict[str, JSON]:
        from engine.marine.determinize import seat_context

        check_seat(seat, self.n)
        return seat_context(self, seat)

    def score_parts(self, seat: int) -> dict[str, int]:
        """VP by source; control markers score their target markers' values only at the end."""
        evolution, cards, final = self.vp[seat]
        domination = 0
        if self.phase == "over":
            domination = sum(sp.target for sp in self.special if sp.controller == seat)
        return {"evolution": evolution, "cards": cards, "final": final, "domination": domination}

    # -- shared board operations ----------------------------------------------------------------------------------

    def order_from(self, seat: int) -> list[int]:
        return [(seat + i) % self.n for i in range(self.n)]

    def add_tile(self, h: Hex, terrain: int) -> None:
        self.terrain[h] = terrain
        self.species[h] = [0] * self.n
        self.tile_order.append(h)
        self.tile_order.sort()
        self._types.pop(h, None)  # no species yet: the domination values stay
        self._thriving.pop(h, None)
        self._adjacent = {}
        self._tile_rows = None

    def is_thriving(self, seat: int, h: Hex) -> bool:
        return self.thriving(h)[seat]

    def thriving(self, h: Hex) -> list[bool]:
        """Per seat, whether it thrives on a tile: it has species there and its animal matches a type touching it
        (board.is_thriving). Cached until the tile's species or types change; the list is shared, not changed."""
        found = self._thriving.get(h)
        if found is None:
            types, counts = self.types_at(h), self.species[h]
            found = self._thriving[h] = [counts[s] > 0 and is_thriving(a, types) for s, a in enumerate(self.animals)]
        return found

    def supply(self, seat: int) -> int:
        return SPECIES_SUPPLY - self.on_board[seat]

    def add_species(self, seat: int, h: Hex, count: int) -> int:
        """Add up to count species from the supply; return how many came."""
        count = min(count, self.supply(seat))
        if count > 0:
            self.species[h][seat] += count
            self.on_board[seat] += count
            self._changed(h, seat, count)
        return max(count, 0)

    def remove_species(self, seat: int, h: Hex, count: int) -> int:
        count = min(count, self.species[h][seat])
        if count > 0:
            self.species[h][seat] -= count
            self.on_board[seat] -= count
            self._changed(h, seat, -count)
        return max(count, 0)

    def move_species(self, seat: int, a: Hex, b: Hex) -> None:
        self.species[a][seat] -= 1
        self.species[b][seat] += 1
        self._changed(a, seat, -1)
        self._changed(b, seat, 1)

    def set_element(self, corner: Corner, element: int) -> None:
        """Put an element on a corner; the tiles it touches now count towards that type's domination values."""
        if corner in self.elements:
            self._values = self._leaders = None
            self._types, self._thriving = {}, {}
        values = self._values
        for h in corner_hexes(corner):
            if h in self.terrain:
                if values is not None and element not in self.types_at(h):
                    for s, count in enumerate(self.species[h]):
                        values[element][s] += count
                self._types.pop(h, None)
                self._thriving.pop(h, None)
        self.elements[corner] = element
        self._leaders = None
        self._element_rows = None

    def dominance(self) -> tuple[list[list[int]], list[int | None]]:
        """Per element type: each seat's domination value (its species on tiles touching that type), and the
        dominating seat: strictly the highest value, ties up the food chain, none at 0 (project-defined). The
        values are kept up to date as species change; tiles and elements changes recompute them."""
        values = self._values
        if values is None:
            values = self._values = [[0] * self.n for _ in ELEMENTS]
            for h in self.tile_order:
                counts = self.species[h]
                for e in self.types_at(h):
                    v = values[e]
                    for s in range(self.n):
                        v[s] += counts[s]
        leaders = self._leaders
        if leaders is None:
            rank = self.animals
            leaders = []
            for v in values:
                best, top = None, 0
                for s, value in enumerate(v):
                    if value > top or (value == top and best is not None and rank[s] < rank[best]):
                        best, top = s, value
                leaders.append(best)
            self._leaders = leaders
        return values, leaders

    def tile_rows(self) -> tuple[tuple[Hex, int, int, str], ...]:
        """Each tile in tile order as (hex, q, r, terrain name): what a view shows of it that changes only when a tile
        is added (cached until then). Immutable, so a clone may share it."""
        rows = self._tile_rows
        if rows is None:
            rows = self._tile_rows = tuple((h, h[0], h[1], TERRAINS[self.terrain[h]]) for h in self.tile_order)
        return rows

    def element_rows(self) -> tuple[tuple[int, int, str, str], ...]:
        """The elements by corner as a view shows them, (q, r, side, element name), sorted (cached until an element
        is set). Immutable, so a clone may share it."""
        rows = self._element_rows
        if rows is None:
            elements = self.elements
            rows = self._element_rows = tuple((c[0], c[1], c[2], ELEMENTS[elements[c]]) for c in sorted(elements))
        return rows

    def adjacent(self, h: Hex) -> tuple[Hex, ...]:
        """The tiles next to a hex, sorted (cached until a tile is added)."""
        found = self._adjacent.get(h)
        if found is None:
            terrain = self.terrain
            found = self._adjacent[h] = tuple(sorted(n for n in neighbours(h) if n in terrain))
        return found

    def types_at(self, h: Hex) -> tuple[int, ...]:
        """The element types touching a tile (cached until elements or tiles change)."""
        types = self._types.get(h)
        if types is None:
            get = self.elements.get
            types = self._types[h] = tuple({e for e in (get(c) for c in hex_corners(h)) if e is not None})
        return types

    def _changed(self, h: Hex, seat: int, delta: int) -> None:
        self._thriving.pop(h, None)
        values = self._values
        if values is not None:
            for e in self.types_at(h):
                values[e][seat] += delta
        self._leaders = None

    def domination_values(self, element: int) -> list[int]:
        return self.dominance()[0][element][:]

    def dominant(self, element: int) -> int | None:
        return self.dominance()[1][element]

    def score(self, h: Hex, part: int) -> list[list[int]]:
        """Score one tile into VP part (0 evolution, 2 final); return [[seat, VP]]."""
        got = score_tile(self.terrain[h], self.species[h], self.animals)
        for seat, value in got:
            self.vp[seat][part] += value
        return [[seat, value] for seat, value in got]

    def deal(self, slot: int) -> None:
        """Deal the top card of the draw pile into a slot; an event on it triggers at once (the seed)."""
        if not self.deck:
            return
        card = self.deck.pop()
        self.slots[slot] = card
        self.event(event="card_dealt", slot=slot + 1, card=CARD_NAMES[card])
        for effect in CARD_EVENTS[card]:
            self.trigger(effect)

    def trigger(self, effect: tuple[object, ...]) -> None:
        verb, terrain_name, amount = effect
        assert isinstance(terrain_name, str) and isinstance(amount, int)
        terrain = TERRAIN_INDEX[terrain_name]
        seats = sorted(range(self.n), key=lambda s: self.animals[s])  # food-chain order
        for h in self.tile_order:
            if self.terrain[h] != terrain:
                continue
            for s in seats:
                if verb == "all_lose":
                    self.remove_species(s, h, amount)
                elif self.species[h][s] > 0:
                    self.add_species(s, h, amount)
        self.event(event=str(verb), terrain=TERRAINS[terrain], amount=amount)

    def slide_and_refill(self, slot: int) -> None:
        """The card in slot left: the cards above slide down one slot, and a new card goes into slot 5."""
        del self.slots[slot]
        self.slots.append(None)
        self.deal(SLOTS - 1)

    def take_card(self, slot: int) -> int:
        card = self.slots[slot]
        assert card is not None
        self.discard.append(card)
        if card == ASTEROID_ID:
            self.asteroid_taken = True
        return card
