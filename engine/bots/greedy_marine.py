"""The greedy heuristic for Marine: score every option by the VP margin it buys now, from the seat's view only.

The margin of a tile is my Evolution-scoring VP there minus the best rival's: the tile will be scored at least once
more at the end. Placing weighs the best Evolution tile of each space, the value of a Domination and a flat value
for the other actions; species go where they raise a margin; the Asteroid is taken only when leading.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.core import Decision
from engine.marine.board import corner_hexes, neighbours, score_tile
from engine.marine.data import ANIMAL_INDEX, ASTEROID, ELEMENT_INDEX, MATCHES, TERRAIN_INDEX, TILE_SCORES

Hex = tuple[int, int]
CARD_WORTH = {"vp": 1.0, "species": 1.3, "species_near": 1.4, "element": 0.6, "move": 0.4, "remove": 0.9}
FLAT = {"speciation": 2.5, "migration": 1.0, "wanderlust": 1.2}
BLIND = frozenset({"wanderlust_move"})  # decision kinds scored from the option alone
MEMO_SIZE = 50_000  # margins remembered across decisions (a few MB at most), forgotten all at once when full

# (terrain, species per seat, animals per seat, my seat) -> my VP there minus the best rival's. A tile's margin
# depends on nothing else, and the same few (tiles with a species moved or added) come back for many options,
# decisions and playouts.
_MARGINS: dict[tuple[int, tuple[int, ...], tuple[int, ...], int], int] = {}


class MarineGreedy:
    def __init__(self) -> None:
        self.view: dict[str, Any] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> MarineGreedy:
        """Shallow: every decision reads its view afresh, replacing what the last one read
        (engine/bots/copying.py)."""
        return copy.copy(self)

    def chosen(self, index: int) -> None:
        pass

    def needs_view(self, decision: Decision) -> bool:
        """False for the decisions scored from the options alone (and those it has no rule for)."""
        return decision.kind not in BLIND and hasattr(self, "score_" + decision.kind)

    def score(self, view: dict[str, Any], decision: Decision) -> list[float]:
        if view or self.needs_view(decision):  # the others are scored alike from an empty view
            self.read(view)
        method = getattr(self, "score_" + decision.kind, None)
        if method is None:
            return [0.0] * len(decision.options)
        return [float(method(option)) for option in decision.options]

    # -- reading the view ------------------------------------------------------------------------------------------

    def read(self, view: dict[str, Any]) -> None:
        self.view = view
        self.me: int = view["you"]
        self.animals = [ANIMAL_INDEX[a] for a in view["animals"]]
        me = self.me
        terrain: dict[Hex, int] = {}
        species: dict[Hex, list[int]] = {}  # the view's lists: a changed count is worked out on a copy
        thriving: dict[Hex, bool] = {}
        for t in view["tiles"]:
            q, r = t["hex"]
            terrain[q, r] = TERRAIN_INDEX[t["terrain"]]
            species[q, r] = t["species"]
            thriving[q, r] = t["thriving"][me]
        self.terrain, self.species, self.thriving = terrain, species, thriving
        self.animal_key = tuple(self.animals)
        self.matches = MATCHES[self.animals[self.me]]
        self.margins: dict[Hex, float] = {}
        self.evolution_tiles: dict[Hex, float] = {}  # see score_evolution_tile
        self.leaving: dict[Hex, float] = {}  # see score_move
        self.reaching: dict[Hex, float] = {}

    def margin(self, h: Hex, species: list[int] | None = None) -> float:
        if species is None:  # a tile as the view shows it: once per decision (options ask about the same tiles)
            found = self.margins.get(h)
            if found is None:
                found = self.margins[h] = self._margin(h, self.species[h])
            return found
        return self._margin(h, species)

    def _margin(self, h: Hex, species: list[int]) -> float:
        key = (self.terrain[h], tuple(species or self.species[h]), self.animal_key, self.me)
        found = _MARGINS.get(key)
        if found is None:
            got = dict(score_tile(key[0], key[1], self.animals))
            mine = got.get(self.me, 0)
            best = max((v for s, v in got.items() if s != self.me), default=0)
            if len(_MARGINS) >= MEMO_SIZE:
                _MARGINS.clear()
            found = _MARGINS[key] = mine - best
        return found

    def gain_adding(self, h: Hex, count: int) -> float:
        if h not in self.species:
            return 0.0
        after = self.species[h][:]
        after[self.me] += count
        return self.margin(h, after) - self.margin(h) + 0.3 * count

    def gain_changing(self, h: Hex, delta: int) -> float:
        """What my margin on h gains when my species there change by delta."""
        after = self.species[h][:]
        after[self.me] += delta
        return self.margin(h, after) - self.margin(h)

    def leading(self) -> bool:
        scores = self.view["scores"]
        return all(scores[self.me] > s for i, s in enumerate(scores) if i != self.me)

    def domination_gain(self, element: str) -> float:
        info = self.view["special_pawns"][element]
        value: int = self.view["dominance"][element]["values"][self.me]
        now: int = info["target"]
        target = max(now, value)
        if info["controller"] == self.me:
            return float(target - now)
        return target + (now if info["controller"] is not None else 0) + 1.5

    # -- per decision kind ---------------------------------------------------------------------------------------

    def score_place(self, option: list[Any]) -> float:
        action = option[0]
        if action == "evolution":
            terrain = TERRAIN_INDEX[self.view["markers"][option[1] - 1]]
            tiles = [h for h, t in self.terrain.items() if t == terrain]
            return max((self.score_evolution_tile([h[0], h[1]]) for h in tiles), default=-1.0)
        if action == "domination":
            return 0.8 * max(self.domination_gain(e) for e, d in self.view["dominance"].items()
                         if d["dominant"] == self.me)
        return FLAT[action]

    def score_evolution_tile(self, option: list[int]) -> float:
        h = (option[0], option[1])
        found = self.evolution_tiles.get(h)  # once per tile and decision: placing asks about every tile of a terrain
        if found is None:
            got = dict(score_tile(self.terrain[h], self.species[h], self.animals))
            rivals = sorted((v for s, v in got.items() if s != self.me), reverse=True)
            found = self.evolution_tiles[h] = \
                got.get(self.me, 0) - 0.5 * sum(rivals[:1]) + (2.0 if self.thriving[h] else 0.0)
        return found

    def score_evolution_card(self, slot: int) -> float:
        card = self.view["slots"][slot - 1]
        if card["card"] == ASTEROID:
            return 5.0 if self.leading() else -20.0
        return float(sum(CARD_WORTH.get(e[0], 0.0) * e[1] for e in card["effects"]))

    def score_speciate(self, corner: list[Any]) -> float:
        hexes = corner_hexes((corner[0], corner[1], corner[2]))
        return sum(self.gain_adding(h, 1) for h in hexes if h in self.terrain)

    def score_move(self, option: Any) -> float:
        """What my margins gain by the move: what the tile it leaves gains plus what the tile it reaches gains
        (margins are whole VP: the sum is exact), each worked out once per tile and decision (a migration offers
        every pair of neighbouring tiles)."""
        if option == "done":
            return 0.05
        (aq, ar), (bq, br) = option
        left, reached = self.leaving.get((aq, ar)), self.reaching.get((bq, br))
        if left is None:
            left = self.leaving[aq, ar] = self.gain_changing((aq, ar), -1)
        if reached is None:
            reached = self.reaching[bq, br] = self.gain_changing((bq, br), 1)
        return left + reached

    def score_wanderlust_stack(self, index: int) -> float:
        top = self.view["tile_stacks"][index]["top"]
        return float(TILE_SCORES[top][0] or 0) if top else 0.0

    def score_wanderlust_hex(self, option: list[int]) -> float:
        h = (option[0], option[1])
        return sum(self.species[n][self.me] for n in neighbours(h) if n in self.species)

    def score_wanderlust_element(self, element: str) -> float:
        return 1.0 if ELEMENT_INDEX[element] in self.matches else 0.0

    score_card_element = score_wanderlust_element

    def score_wanderlust_move(self, option: Any) -> float:
        return 0.05 if option == "done" else 0.5

    def score_card_species_tile(self, option: list[int]) -> float:
        return self.gain_adding((option[0], option[1]), 1)

    def score_card_remove(self, animal: str) -> float:
        seat = self.animals.index(ANIMAL_INDEX[animal])
        return float(self.view["scores"][seat])

    def score_dominate(self, element: str) -> float:
        return self.domination_gain(element)
