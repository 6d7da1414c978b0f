"""The Evolution state: the board, the step stack that drives the rules, and the shared board operations."""

from __future__ import annotations

import random
from typing import Any

from engine.core import JSON, Decision, Game, Outcome, check_seat
from engine.evolution import seat_views
from engine.evolution.cards import CARD_ID, CARD_KIND, CARD_STR, FAT_TISSUE, FLIGHT_CARD, KIND
from engine.evolution.species import Species
from engine.evolution.step_registry import STEPS
from engine.steps import StepState, Task

_FLIGHT_KIND = KIND["Flight"]


class EvolutionState(StepState):
    game: Game
    steps = STEPS

    def __init__(self, options: dict[str, Any], seed: int, num_players: int) -> None:
        self.options = options
        self.seed = seed
        self.n = num_players
        self.flight = options["expansions"] == "flight"
        self.hard_shell = int(options["hard_shell_bonus"])
        self.round = 1
        self.phase = "deal"
        self.first = 0
        self.last_round: int | None = None
        self.wh = 0
        self.cliff = 0
        self.deck: list[int] = []  # the top card is the last one
        self.reserve: list[int] = []
        self.reserve_used = False
        self.discard: list[int] = []
        self.shuffles = 0
        self.hands: list[list[int]] = [[] for _ in range(num_players)]  # kept sorted
        self.bags = [0] * num_players
        self.rows: list[list[Species]] = [[] for _ in range(num_players)]
        self.food_cards: list[int | None] = [None] * num_players
        self.by_sid: dict[int, Species] = {}
        self.next_sid = 0
        self.passes = 0
        self.acted = False
        self.negated: list[str] = []
        self.stack: list[Task] = []
        self.discard_names: tuple[list[int], list[str]] = (self.discard, [])  # a cache: see seat_views
        self._decision: Decision | None = None
        self._events: list[JSON] = []

    # -- the engine contract (decision, apply and the step loop: engine/steps.py) -----------------------------

    def view(self, seat: int | None) -> dict[str, JSON]:
        return seat_views.build_view(self, seat)

    def seat_patch(self, seat: int, sent: Any, max_ops: int) -> tuple[dict[str, JSON], list[dict[str, JSON]] | None,
                                                                    Any]:
        return seat_views.seat_patch(self, seat, sent, max_ops)  # at every decision of a sandboxed seat

    def outcome(self) -> Outcome | None:
        from engine.evolution.scoring import outcome

        return outcome(self)

    def to_dict(self) -> dict[str, JSON]:
        from engine.evolution.serial import state_to_dict

        return state_to_dict(self)

    def clone(self) -> EvolutionState:
        other = EvolutionState.__new__(EvolutionState)
        other.__dict__.update(self.__dict__)
        other.options = dict(self.options)
        other.deck, other.reserve, other.discard = self.deck[:], self.reserve[:], self.discard[:]
        other.hands = [h[:] for h in self.hands]
        other.bags = self.bags[:]
        other.rows = [[sp.copy() for sp in row] for row in self.rows]
        other.by_sid = {sp.sid: sp for row in other.rows for sp in row}
        other.food_cards = self.food_cards[:]
        other.negated = self.negated[:]
        other.stack = self.stack[:]  # steps are immutable
        other._events = []
        return other

    def step_arg_ok(self, kind: str, arg: Any) -> bool:
        from engine.evolution.serial import arg_ok

        return arg_ok(self, kind, arg)

    def resample(self, seed: int) -> EvolutionState:
        from engine.evolution.hidden import resample

        return resample(self, seed)

    def scores(self) -> list[int]:
        return [sum(self.score_parts(s).values()) for s in range(self.n)]

    def seat_context(self, seat: int) -> dict[str, JSON]:
        from engine.evolution.determinize import seat_context

        check_seat(seat, self.n)
        return seat_context(self, seat)

    def score_parts(self, seat: int) -> dict[str, int]:
        from engine.evolution.scoring import score_parts

        return score_parts(self, seat)

    # -- shared board operations ----------------------------------------------------------------------------

    def order(self) -> list[int]:
        """Seats in turn order from the first player (ruling 19)."""
        return [(self.first + i) % self.n for i in range(self.n)]

    def index(self, sp: Species) -> int:
        return self.rows[sp.owner].index(sp)

    def shuffle(self, cards: list[int]) -> None:
        """Shuffle from the seed: a fresh generator per shuffle, numbered in the state, so dicts stay small."""
        random.Random(f"{self.seed}:shuffle:{self.shuffles}").shuffle(cards)
        self.shuffles += 1

    def draw(self, seat: int, count: int, dealing: bool) -> int:
        """Draw count cards into seat's hand; returns how many came. The deck running out ends the game (22, 31)."""
        hand, drawn = self.hands[seat], 0
        for _ in range(count):
            if not self.deck:
                self.exhaust(dealing)
                if not self.deck:
                    break
            hand.append(self.deck.pop())
            drawn += 1
        hand.sort()
        return drawn

    def exhaust(self, dealing: bool) -> None:
        """A card is needed from an empty deck (ruling 31). With Flight the reserve becomes the deck once; without
        it the discard pile is reshuffled (ruling 22). In the deal this round is the last, else the next one is."""
        last = self.round if dealing else self.round + 1
        if self.flight and not self.reserve_used:
            self.reserve_used = True
            self.deck, self.reserve = self.reserve, []
        elif not self.flight and self.discard:
            self.deck, self.discard = self.discard, []
            self.shuffle(self.deck)
        if self.last_round is None or last < self.last_round:
            self.last_round = last
            self.event(event="deck_exhausted", last_round=last)

    def take_from_hand(self, seat: int, card: str) -> int:
        cid = CARD_ID[card]
        self.hands[seat].remove(cid)
        return cid

    def discard_card(self, cid: int) -> None:
        if CARD_KIND[cid] != _FLIGHT_KIND:  # a Flight card goes back beside the deck (ruling 3)
            self.discard.append(cid)

    def trim(self, sp: Species) -> None:
        """Population food above the Population goes to the owner's bag (seed 001, ruling 28); upkeep stays."""
        if sp.food > sp.pop:
            self.bags[sp.owner] += sp.food - sp.pop
            sp.food = sp.pop

    def extinct(self, sp: Species) -> None:
        """Discard the board and its traits; the owner draws one card per trait at once (rulings 21, 27)."""
        row = self.rows[sp.owner]
        idx = row.index(sp)
        del row[idx]
        del self.by_sid[sp.sid]
        cards = sp.cards + sp.hidden
        for c in cards:
            self.discard_card(c)
        self.bags[sp.owner] += sp.food
        self.event(event="extinct", seat=sp.owner, species=idx, traits=len(cards))
        if cards:
            self.draw(sp.owner, len(cards), dealing=False)

    def new_species(self, seat: int, avian: bool, left: bool) -> Species:
        sp = Species(self.next_sid, seat, avian, [FLIGHT_CARD] if avian else [])
        self.next_sid += 1
        self.by_sid[sp.sid] = sp
        if left:
            self.rows[seat].insert(0, sp)
        else:
            self.rows[seat].append(sp)
        return sp

    def remove_trait(self, sp: Species, cid: int) -> None:
        """Take a trait card off a species into the discard pile."""
        if cid in sp.hidden:
            sp.hidden.remove(cid)
        else:
            sp.cards.remove(cid)
            if sp.mask & FAT_TISSUE and CARD_KIND[cid] == KIND["Fat Tissue"]:
                sp.fat = 0
            sp.refresh()
        self.discard_card(cid)

    def make_land(self, sp: Species) -> None:
        """An avian species without Flight becomes a land species for good (ruling 7, 30); its upkeep food
        moves to its Population spaces as far as they have room, the rest goes back to the bank."""
        sp.avian = False
        sp.food = min(sp.pop, sp.food + sp.upkeep)
        sp.upkeep = 0

    def avian_count(self) -> int:
        return sum(1 for sp in self.by_sid.values() if sp.avian)


def distinct_cards(hand: list[int]) -> list[str]:
    """The different cards of a sorted hand, spelled out, in hand order."""
    out: list[str] = []
    last = -1
    for c in hand:
        if c != last:
            out.append(CARD_STR[c])
            last = c
    return out
