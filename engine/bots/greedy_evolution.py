"""The greedy heuristic for evolution: score every option of the decision from the seat's view alone.

The rules of thumb, one per decision kind:
- feed the hungriest species first, a species that would go extinct before one that is merely hungry; a hungry
  carnivore prefers to attack; Intelligence (it costs a card) only when nothing else feeds;
- attack the biggest foreign species (most meat), never one's own when another target exists;
- play a card when its best use is worth more than keeping it: defensive traits when a carnivore that could
  eat the species is in play, feeding traits otherwise, a new species while the row is short, Population when
  food is plentiful, Body Size against bigger carnivores;
- play an event (Seed Dispersal, Dive Bomb) as soon as it is offered: it is food on top of the normal feeding;
- as the food card give a card with a high food value when food is short, else the least useful card;
- discard (for negations, Intelligence, Flight) the least useful card.
The bot remembers its own last choices (the card it picked and the plan for it, the species it fed), as any
uploaded bot may; it never sees hidden information. Ties are broken by the caller's seeded rng.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from engine.core import Decision

View = dict[str, Any]
Species = dict[str, Any]
T = TypeVar("T")

DEFENSIVE = frozenset({"Hard Shell", "Burrowing", "Climbing", "Defensive Herding", "Horns", "Symbiosis",
                       "Warning Call", "Camouflage"})
PLANT_ONLY = frozenset({"Long Neck", "Foraging", "Good Eyesight", "Cooperation"})
FEEDING_VALUE = {"Long Neck": 3.0, "Foraging": 2.5, "Fertile": 2.5, "Fat Tissue": 2.0, "Good Eyesight": 2.0,
                 "Intelligence": 1.5, "Nesting": 1.5}
CARNIVORE_HELPERS = frozenset({"Pack Hunting", "Ambush"})
TRIGGER_ORDER = {"Fertile": 5.0, "Fat Tissue": 4.0, "Brood Parasite": 3.5, "Long Neck": 3.0, "Good Eyesight": 2.0}
KEEP_CARD = 0.6  # a card whose best use is worth less than this stays in hand


class _Names(dict[str, str]):
    """Card text -> trait name, filled as asked: a few dozen cards, asked about thousands of times a decision.
    A dict with __missing__ rather than functools.cache, so that a hit is a plain subscript (no call)."""

    def __missing__(self, card: str) -> str:
        name = self[card] = card.rsplit(":", 1)[0]
        return name


_NAMES = _Names()


def card_name(card: str) -> str:
    return _NAMES[card]


def card_food(card: str) -> int:
    return int(card.rsplit(":", 1)[1])


def traits_of(sp: Species) -> list[str]:
    """Face-up and (own) face-down trait names; a hidden "?" counts as no known trait. Remembered per species
    object for the length of one decision (see Board), since one decision asks about the same species often."""
    cached = _TRAITS.get(id(sp))
    if cached is not None and cached[0] is sp:
        return cached[1]
    return _remember_traits(sp)[1]


def _remember_traits(sp: Species) -> tuple[Species, list[str], bool]:
    names = [_NAMES[c] for c in sp["traits"] + sp["face_down"] if c != "?"]
    entry = _TRAITS[id(sp)] = (sp, names, "Carnivore" in names)  # holding sp keeps its id from being reused
    return entry


# id(species dict) -> (the dict, its trait names, is it a carnivore): filled as asked, emptied by each Board (the
# view of one decision)
_TRAITS: dict[int, tuple[Species, list[str], bool]] = {}


def need(sp: Species) -> int:
    upkeep_room = sp["body_size"] - sp["upkeep"] if sp["avian"] else 0
    return int(upkeep_room + sp["population"] - sp["food"])


def is_carnivore(sp: Species) -> bool:
    cached = _TRAITS.get(id(sp))
    if cached is not None and cached[0] is sp:
        return cached[2]
    return _remember_traits(sp)[2]


class lazy(Generic[T]):  # lower case: a decorator, like the property it replaces
    """functools.cached_property without its lock (Python 3.11 takes one at each first read, and a decision makes
    several; a Board is read by one thread): the first read stores the value in the instance."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func, self.name = func, func.__name__

    def __get__(self, board: Any, owner: type | None = None) -> T:
        value = board.__dict__[self.name] = self.func(board)
        return value


class Board:
    """The view of one decision, with the handful of facts the heuristics use, each worked out when first asked
    (most decisions need few of them)."""

    def __init__(self, view: View) -> None:
        _TRAITS.clear()
        self.view = view
        self.me: int = view["you"] if isinstance(view.get("you"), int) else 0
        self.seat: dict[str, Any] = view["seats"][self.me]
        self.mine: list[Species] = self.seat["species"]
        self.plans: dict[str, Plan] = {}  # by trait name
        self.trait_uses: dict[str, tuple[float, int | None, str | None]] = {}  # see best_trait_use
        self.other_plan: Plan | None = None  # see _best_other_plan
        self.worst: dict[int, tuple[str | None, float]] = {}  # see _worst_trait

    @lazy
    def hand(self) -> list[str]:
        return [c["card"] for c in self.seat["hand"] or []]

    @lazy
    def foreign_carnivores(self) -> list[Species]:
        # is_carnivore without its per-species memo: map runs the name look-ups in C ("?" is named "?")
        return [sp for s in self.view["seats"] if s["seat"] != self.me for sp in s["species"]
                if "Carnivore" in map(_NAMES.__getitem__, sp["traits"] + sp["face_down"])]

    @lazy
    def foreign_sizes(self) -> list[int]:
        """Foreign species' body sizes, smallest first."""
        return sorted(sp["body_size"] for s in self.view["seats"] if s["seat"] != self.me for sp in s["species"])

    @lazy
    def my_carnivores(self) -> int:
        return sum(1 for s in self.mine if is_carnivore(s))

    @lazy
    def short(self) -> bool:
        return self.plant_need() > int(self.view["watering_hole"])

    @lazy
    def biggest_attack(self) -> int | None:
        """The attack size of the biggest foreign carnivore (None without one)."""
        return max((_attack_size(c) for c in self.foreign_carnivores), default=None)

    @lazy
    def takers(self) -> list[tuple[int, Species, list[str], bool, str | None, float]]:
        """The own species a trait may go on, in order: (index, species, its trait names, is it the newest, the
        trait it would replace on a full species (None: not full) and that trait's worth); a full species whose
        least worth trait is Flight takes none (see _best_trait_use)."""
        found = []
        newest = self.mine[-1] if self.mine else None
        for i, sp in enumerate(self.mine):
            worst, worth = None, 0.0
            if len(sp["traits"]) + len(sp["face_down"]) >= 3:
                worst, worth = _worst_trait(self, i)
                if worst is None or worst == "Flight":
                    continue
            found.append((i, sp, traits_of(sp), sp is newest, worst, worth))
        return found

    def plant_need(self) -> int:
        return sum(max(need(sp), 0) for sp in self.mine if not is_carnivore(sp))

    def food_is_short(self) -> bool:
        return self.short

    def threatened(self, sp: Species) -> bool:
        """A foreign carnivore is big enough to eat sp."""
        biggest = self.biggest_attack
        return biggest is not None and biggest > sp["body_size"]

    def prey_count(self, size: int) -> int:
        """Foreign species smaller than size."""
        return bisect_left(self.foreign_sizes, size)


def _attack_size(sp: Species) -> int:
    size = int(sp["body_size"])
    return size + int(sp["population"]) if "Pack Hunting" in traits_of(sp) else size


# -- what a card is worth ----------------------------------------------------------------------------------------

def trait_value(board: Board, name: str, sp: Species) -> float:
    """The worth of trait `name` on species sp (a trait on a surviving species also scores 1 point)."""
    return _trait_value(board, name, sp, traits_of(sp), sp is board.mine[-1])


def _trait_value(board: Board, name: str, sp: Species, have: list[str], newest: bool) -> float:
    """trait_value of `name` on sp when sp has the traits `have` and is (or not) the newest own species."""
    if name in have or name in ("Flight", "Dive Bomb", "Seed Dispersal"):
        return -10.0
    carnivore = "Carnivore" in have
    if name == "Carnivore":
        if any(t in PLANT_ONLY for t in have):
            return -1.0
        return 1.0 + (1.5 if board.my_carnivores == 0 and board.prey_count(sp["body_size"] + 1) else 0.2)
    if name in DEFENSIVE:
        return 1.0 + (2.5 if board.threatened(sp) else 0.2)
    if name in CARNIVORE_HELPERS:
        return 1.0 + (1.8 if carnivore else -0.8)
    if name == "Scavenger":
        return 1.0 + (1.5 if board.foreign_carnivores or carnivore else 0.2)
    if name == "Cooperation":
        return 1.0 + (1.2 if not carnivore and not newest else 0.1)
    if name == "Brood Parasite":
        return 1.5 if sp["avian"] else 0.5
    if carnivore and name in PLANT_ONLY:
        return 0.3
    return 1.0 + FEEDING_VALUE.get(name, 0.5)


def best_trait_use(board: Board, card: str) -> tuple[float, int | None, str | None]:
    """(value, species index, trait to replace) of playing card as a trait on the best species (once per trait
    name and decision)."""
    name = card_name(card)
    best = board.trait_uses.get(name)
    if best is None:
        best = board.trait_uses[name] = _best_trait_use(board, name)
    return best


def _best_trait_use(board: Board, name: str) -> tuple[float, int | None, str | None]:
    """On a full species the trait replaces its least worth one: the gain is the difference, less 0.5."""
    best: tuple[float, int | None, str | None] = (-10.0, None, None)
    for i, sp, have, newest, replaced, worth in board.takers:
        gain = _trait_value(board, name, sp, have, newest)  # = trait_value, one call less
        if replaced is not None:
            gain = gain - worth - 0.5
        if gain > best[0]:
            best = (gain, i, replaced)
    return best


def _worst_trait(board: Board, i: int) -> tuple[str | None, float]:
    """The least worth trait of own species i and its worth (the same for every card: once per decision)."""
    found = board.worst.get(i)
    if found is None:
        sp = board.mine[i]
        names = traits_of(sp)
        values = [_trait_value(board, t, sp, [n for n in names if n != t], False) for t in names]  # trait_value_on
        worst = values.index(min(values)) if values else None  # the first of the least worth, as min() picks
        found = board.worst[i] = (names[worst], values[worst]) if worst is not None else (None, 0.0)
    return found


def trait_value_on(board: Board, name: str, sp: Species) -> float:
    """The worth of a trait already on sp (as if it were not there yet: sp without any card of that name, which
    is never the newest species object)."""
    return _trait_value(board, name, sp, [t for t in traits_of(sp) if t != name], False)


def population_value(board: Board, sp: Species) -> float:
    if sp["population"] >= 6:
        return -10.0
    if is_carnivore(sp):
        return 0.8
    return 1.8 if not board.food_is_short() else 0.3


def body_value(board: Board, sp: Species) -> float:
    if sp["body_size"] >= (3 if sp["avian"] else 6):
        return -10.0
    if is_carnivore(sp):
        return 1.6 if board.prey_count(sp["body_size"] + 1) > board.prey_count(sp["body_size"]) else 0.6
    return 1.5 if board.threatened(sp) else 0.4


def new_species_value(board: Board) -> float:
    count = len(board.mine)
    return 2.6 if count < 3 else 1.0 if count < 5 else 0.1


class Plan(NamedTuple):
    """What to do with a card: use ("trait", "species", "body", "population", "avian") and the species index (a
    named tuple: several are made per decision, and a frozen dataclass is slower to make)."""

    value: float
    use: str
    species: int | None = None
    replace: str | None = None


def card_plan(board: Board, card: str) -> Plan:
    """The best use of card from hand, by value (worked out once per trait name and decision: a card's plan does
    not depend on its food value)."""
    name = card_name(card)
    plan = board.plans.get(name)
    if plan is None:
        plan = board.plans[name] = _card_plan(board, card)
    return plan


def _card_plan(board: Board, card: str) -> Plan:
    """The first best of: the trait plan, the other plans (species, body, population), keeping an event."""
    value, idx, replace = best_trait_use(board, card)
    other = _best_other_plan(board)
    plan = Plan(value, "trait", idx, replace) if value >= other.value else other
    if card_name(card) in ("Dive Bomb", "Seed Dispersal") and any(sp["avian"] for sp in board.mine) \
            and 1.2 > plan.value:
        return Plan(1.2, "keep")
    return plan


def _best_other_plan(board: Board) -> Plan:
    """The first best of the plans that are the same for every card (a new species, Body Size, Population), once
    per decision."""
    if board.other_plan is None:
        plans = [Plan(new_species_value(board), "species")]
        if board.mine:
            for use, value in (("body", body_value), ("population", population_value)):
                values = [value(board, sp) for sp in board.mine]
                best = max(values)
                plans.append(Plan(best, use, values.index(best)))  # the first best species, as max() picks
        board.other_plan = max(plans, key=lambda p: p.value)
    return board.other_plan


def card_cost(board: Board, card: str) -> float:
    """What giving a card away (as food or a discard) costs: its best use, a little its food value."""
    return card_plan(board, card).value + 0.05 * card_food(card)


# -- the scorer --------------------------------------------------------------------------------------------------

Handler = Callable[["EvolutionGreedy", Board, Any], float]


class EvolutionGreedy:
    """Scores options; remembers the plan for the card it picked and the species it chose to feed."""

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.card: str | None = None
        self.feeder: int | None = None
        self._last: tuple[str, list[Any]] | None = None
        self._plans: dict[str, Plan] = {}
        self._settled: tuple[Decision, Plan | None, list[float] | None] | None = None  # see settled

    def __deepcopy__(self, memo: dict[int, Any]) -> EvolutionGreedy:
        """Shallow: the plans, the card and the last options are replaced, never changed in place
        (engine/bots/copying.py)."""
        return copy.copy(self)

    def needs_view(self, decision: Decision) -> bool:
        """False for a decision scored without the view (see `settled`): the caller may pass an empty one."""
        return self.settled(decision) is None

    def settled(self, decision: Decision) -> list[float] | None:
        """The scores of a decision that needs no view, else None: one whose handler reads only the option; one the
        bot's plan settles (the planned option scores 10, and no handler scores another option near 10: at most 4);
        feeding one species or passing (feeding scores at least 1 but by Intelligence, passing 0.5: _feed). The
        chosen option scores 10 here and the rest 0 (tests/engine/test_greedy_bot.py checks the choice is the
        same). Kept for the last decision and plan asked about: needs_view asks first, then score."""
        last = self._settled
        if last is not None and last[0] is decision and last[1] is self.plan:
            return last[2]
        scores = self._settle(decision)
        self._settled = (decision, self.plan, scores)
        return scores

    def _settle(self, decision: Decision) -> list[float] | None:
        kind, options = decision.kind, decision.options
        key = PLANNED.get(kind)
        if key is not None:
            plan = self.plan
            if plan is None:
                return None
            wanted = key(plan)
            return _only(options, options.index(wanted)) if options.count(wanted) == 1 else None
        if kind == "feed":
            fed = _fed_rather_than_pass(options)
            return None if fed is None else _only(options, fed)
        if kind in BLIND or kind not in HANDLERS:
            blind = BLIND.get(kind, _neutral)
            return [blind(self, None, option) for option in options]
        return None

    def score(self, view: View, decision: Decision) -> list[float]:
        if not view:  # none built: the caller asked needs_view first
            scores = self.settled(decision)
            if scores is not None:
                self._last = (decision.kind, list(decision.options))
                return scores
        board = Board(view)
        handler = HANDLERS.get(decision.kind, _neutral)
        self._last = (decision.kind, list(decision.options))
        if decision.kind == "play":
            self._plans = {c: card_plan(board, c) for c in board.hand}
        return [handler(self, board, option) for option in decision.options]

    def chosen(self, index: int) -> None:
        """Remember what the bot just chose, for the follow-up decisions about the same card or species."""
        if self._last is None:
            return
        kind, options = self._last
        option = options[index]
        if kind == "play" and isinstance(option, list):
            self.card, self.plan = option[1], self._plans.get(option[1])
        elif kind in ("feed", "dive_bomb_species"):
            first = option[0] if isinstance(option, list) else option
            self.feeder = first if isinstance(first, int) else None


def _neutral(bot: EvolutionGreedy, board: Board | None, option: Any) -> float:
    return 0.0


def _only(options: Sequence[Any], chosen: int) -> list[float]:
    """The scores of a settled decision: 10 for the chosen option, 0 for the others."""
    scores = [0.0] * len(options)
    scores[chosen] = 10.0
    return scores


def _fed_rather_than_pass(options: Sequence[Any]) -> int | None:
    """With two options, passing and feeding one species but by Intelligence, the index of the feeding."""
    if len(options) != 2 or "pass" not in options:
        return None
    fed = 1 - options.index("pass")
    option = options[fed]
    return fed if type(option) is list and type(option[0]) is int and option[1] != "intelligence" else None


def _food_card(bot: EvolutionGreedy, board: Board, card: Any) -> float:
    cost = card_cost(board, card)
    return card_food(card) * 0.8 - cost if board.food_is_short() else 0.1 * card_food(card) - cost


def _play(bot: EvolutionGreedy, board: Board, option: Any) -> float:
    if option == "done":
        return KEEP_CARD
    if option == "discard_trait":
        return -5.0
    plan = card_plan(board, option[1])
    return -1.0 if plan.use == "keep" else plan.value


def _card_use(bot: EvolutionGreedy, board: Board, use: Any) -> float:
    plan = bot.plan
    if plan is not None and plan.use == use:
        return 10.0
    if use == "species":
        return new_species_value(board)
    if use == "trait" and bot.card is not None:
        return best_trait_use(board, bot.card)[0]
    if use in ("body", "population") and board.mine:
        value = body_value if use == "body" else population_value
        return max(value(board, sp) for sp in board.mine)
    return 0.0


def _trait_species(bot: EvolutionGreedy, board: Board, i: Any) -> float:
    if bot.plan is not None and bot.plan.use == "trait" and bot.plan.species == i:
        return 10.0
    return trait_value(board, card_name(bot.card), board.mine[i]) if bot.card else -len(board.mine[i]["traits"])


def _replace_trait(bot: EvolutionGreedy, board: Board, name: Any) -> float:
    if bot.plan is not None and bot.plan.replace == name:
        return 10.0
    return -_generic_trait_worth(name)


def _generic_trait_worth(name: str) -> float:
    return 1.0 + FEEDING_VALUE.get(name, 1.0 if name in DEFENSIVE or name == "Carnivore" else 0.5)


def _grow(bot: EvolutionGreedy, board: Board, i: Any) -> float:
    if bot.plan is not None and bot.plan.species == i:
        return 10.0
    sp = board.mine[i]
    return body_value(board, sp) if bot.plan is not None and bot.plan.use == "body" else population_value(board, sp)


def _side(bot: EvolutionGreedy, board: Board | None, side: Any) -> float:
    return 0.1 if side == "right" else 0.0


def _discard_card(bot: EvolutionGreedy, board: Board, card: Any) -> float:
    return -card_cost(board, card)


def _feed(bot: EvolutionGreedy, board: Board, option: Any) -> float:
    if option == "pass":
        return 0.5
    if option[0] == "seed_dispersal":  # free food before feeding, and the turn goes on: play it first
        hungry_avians = sum(need(sp) for sp in board.mine if sp["avian"])
        return 20.0 + (1.0 if (option[1] == "cliff") == (hungry_avians > 0) else 0.0)
    if option[0] == "dive_bomb":  # an extra feeding for an avian species
        return 19.0 + (0.1 if option[1] == "before" else 0.0)
    i, how = option
    sp = board.mine[i]
    hungry = need(sp)
    if hungry <= 0:
        return 1.0 if how != "intelligence" else 0.2  # storing fat: better than passing
    score = 5.0 + hungry + (2.0 if sp["food"] == 0 else 0.0)
    if how == "attack":
        score += 3.0
    elif how == "intelligence":
        score -= 4.0
    elif how == "cliff":
        score += 0.3
    traits = traits_of(sp)
    return score + 0.5 * ("Foraging" in traits) + 0.5 * ("Cooperation" in traits)


def _target(bot: EvolutionGreedy, board: Board, target: Any) -> float:
    seat, i = target
    sp = board.view["seats"][seat]["species"][i]
    if seat == board.me:
        return -10.0 - float(sp["population"])
    leader = max(board.view["seats"], key=lambda s: s.get("public_score", 0))["seat"]
    return float(sp["body_size"]) + (0.5 if seat == leader else 0.0) + (0.3 if sp["population"] == 1 else 0.0)


def _horns(bot: EvolutionGreedy, board: Board, choice: Any) -> float:
    return 0.0 if choice == "keep" else 1.0 - card_cost(board, choice)


def _store_fat(bot: EvolutionGreedy, board: Board | None, amount: Any) -> float:
    return float(amount)


def _prefer_bank(bot: EvolutionGreedy, board: Board | None, source: Any) -> float:
    return {"bank": 1.0, "cliff": 0.4}.get(source, 0.0)


def _trigger(bot: EvolutionGreedy, board: Board | None, option: Any) -> float:
    return TRIGGER_ORDER.get(option[1], 1.0)


def _dive_species(bot: EvolutionGreedy, board: Board, i: Any) -> float:
    return float(need(board.mine[i]))


def _discard_species(bot: EvolutionGreedy, board: Board, i: Any) -> float:
    sp = board.mine[i]
    return -min((trait_value_on(board, t, sp) for t in traits_of(sp) if t != "Flight"), default=5.0)


BlindHandler = Callable[["EvolutionGreedy", Board | None, Any], float]
# The handlers that read only the option (and the bot's memory), never the board.
BLIND: dict[str, BlindHandler] = {"species_side": _side, "store_fat": _store_fat, "nesting_source": _prefer_bank,
                                  "dive_bomb_source": _prefer_bank, "trigger_order": _trigger}
_NOTHING = object()  # equal to no option
# The decisions where the plan scores one option 10: the plan's field that the option must equal.
PLANNED: dict[str, Callable[[Plan], Any]] = {
    "card_use": lambda plan: plan.use,
    "trait_species": lambda plan: plan.species if plan.use == "trait" else _NOTHING,
    "grow_species": lambda plan: plan.species,
    "replace_trait": lambda plan: plan.replace,
    "discard_trait": lambda plan: plan.replace,
}

HANDLERS: dict[str, Handler] = {
    "food_card": _food_card, "play": _play, "card_use": _card_use, "trait_species": _trait_species,
    "replace_trait": _replace_trait, "species_side": _side, "avian_card": _discard_card,
    "grow_species": _grow, "discard_trait_species": _discard_species, "discard_trait": _replace_trait,
    "feed": _feed, "intelligence_card": _discard_card, "attack_target": _target, "negate_card": _discard_card,
    "negate_horns": _horns, "store_fat": _store_fat, "nesting_source": _prefer_bank,
    "trigger_order": _trigger, "dive_bomb_species": _dive_species,
    "dive_bomb_source": _prefer_bank,
}
