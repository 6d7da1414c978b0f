"""A species board: its traits, Body Size, Population and the food on it."""

from __future__ import annotations

from engine.evolution.cards import CARD_BIT, FAT_TISSUE, FLIGHT

MAX_POPULATION = 6
MAX_BODY_LAND = 6
MAX_BODY_AVIAN = 3  # ruling 8


class Species:
    """One board. `cards` are the face-up trait cards; `hidden` the ones played face down this phase 3.

    `food` is Population food; `upkeep` is an avian species' upkeep food (ruling 15); `fat` is Fat Tissue store.
    `mask` is the OR of the face-up traits' bits, kept in step with `cards` by refresh().
    """

    __slots__ = ("sid", "owner", "cards", "hidden", "body", "pop", "food", "fat", "upkeep", "avian", "mask")

    def __init__(self, sid: int, owner: int, avian: bool = False, cards: list[int] | None = None,
                 hidden: list[int] | None = None, body: int = 1, pop: int = 1, food: int = 0, fat: int = 0,
                 upkeep: int = 0) -> None:
        self.sid = sid
        self.owner = owner
        self.cards: list[int] = cards if cards is not None else []
        self.hidden: list[int] = hidden if hidden is not None else []
        self.body = body
        self.pop = pop
        self.food = food
        self.fat = fat
        self.upkeep = upkeep
        self.avian = avian
        self.mask = 0
        self.refresh()

    def refresh(self) -> None:
        mask = 0
        for c in self.cards:
            mask |= CARD_BIT[c]
        self.mask = mask

    def copy(self) -> Species:
        return Species(self.sid, self.owner, self.avian, self.cards[:], self.hidden[:], self.body, self.pop,
                       self.food, self.fat, self.upkeep)

    def need(self) -> int:
        """Food still needed: upkeep first for an avian species (ruling 14), then Population."""
        if self.avian:
            return self.body - self.upkeep + self.pop - self.food
        return self.pop - self.food

    def fat_room(self) -> int:
        return self.body - self.fat if self.mask & FAT_TISSUE else 0

    def max_body(self) -> int:
        return MAX_BODY_AVIAN if self.avian else MAX_BODY_LAND

    def all_cards(self) -> list[int]:
        return self.cards + self.hidden

    def trait_count(self) -> int:
        return len(self.cards) + len(self.hidden)

    def has_kind(self, bit: int) -> bool:
        """Whether a trait of this kind is on the board, face up or face down (no duplicates, ruling 9)."""
        if self.mask & bit:
            return True
        return any(CARD_BIT[c] == bit for c in self.hidden)

    def has_flight_card(self) -> bool:
        return bool(self.mask & FLIGHT) or any(CARD_BIT[c] == FLIGHT for c in self.hidden)
