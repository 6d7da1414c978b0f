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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.core import Decision

View = dict[str, Any]
Species = dict[str, Any]

DEFENSIVE = frozenset({"Hard Shell", "Burrowing", "Climbing", "Defensive Herding", "Horns", "Symbiosis",
                       "Warning Call", "Camouflage"})
PLANT_ONLY = frozenset({"Long Neck", "Foraging", "Good Eyesight", "Cooperation"})
FEEDING_VALUE = {"Long Neck": 3.0, "Foraging": 2.5, "Fertile": 2.5, "Fat Tissue": 2.0, "Good Eyesight": 2.0,
                 "Intelligence": 1.5, "Nesting": 1.5}
CARNIVORE_HELPERS = frozenset({"Pack Hunting", "Ambush"})
TRIGGER_ORDER = {"Fertile": 5.0, "Fat Tissue": 4.0, "Brood Parasite": 3.5, "Long Neck": 3.0, "Good Eyesight": 2.0}
KEEP_CARD = 0.6  # a card whose best use is worth less than this stays in hand


def card_name(card: str) -> str:
    name = _NAMES.get(card)
    if name is None:
        name = _NAMES[card] = card.rsplit(":", 1)[0]
    return name


_NAMES: dict[str, str] = {}  # card text -> trait name: a few dozen cards, asked about thousands of times a decision


def card_food(card: str) -> int:
    return int(card.rsplit(":", 1)[1])


def traits_of(sp: Species) -> list[str]:
    """Face-up and (own) face-down trait names; a hidden "?" counts as no known trait. Remembered per species
    object for the length of one decision (see Board), since one decision asks about the same species often."""
    cached = _TRAITS.get(id(sp))
    if cached is not None and cached[0] is sp:
        return cached[1]
    return [card_name(c) for c in sp["traits"] + sp["face_down"] if c != "?"]


# id(species dict) -> (the dict, its trait names): filled by Board for the view of the current decision only
_TRAITS: dict[int, tuple[Species, list[str]]] = {}


def need(sp: Species) -> int:
    upkeep_room = sp["body_size"] - sp["upkeep"] if sp["avian"] else 0
    return int(upkeep_room + sp["population"] - sp["food"])


def is_carnivore(sp: Species) -> bool:
    return "Carnivore" in traits_of(sp)


@dataclass
class Board:
    """The view, read once per decision, with the handful of facts the heuristics use."""

    view: View

    def __post_init__(self) -> None:
        v = self.view
        _TRAITS.clear()
        for s in v["seats"]:
            for sp in s["species"]:
                _TRAITS[id(sp)] = (sp, [card_name(c) for c in sp["traits"] + sp["face_down"] if c != "?"])
        self.me: int = v["you"] if isinstance(v.get("you"), int) else 0
        self.seat: dict[str, Any] = v["seats"][self.me]
        self.mine: list[Species] = self.seat["species"]
        self.hand: list[str] = [c["card"] for c in self.seat["hand"] or []]
        self.food_here: int = v["watering_hole"] + v.get("cliff", 0)
        self.foreign_carnivores = [sp for s in v["seats"] if s["seat"] != self.me
                                   for sp in s["species"] if is_carnivore(sp)]

        self.short = self.plant_need() > int(v["watering_hole"])
        self.plans: dict[str, Plan] = {}  # by trait name
        self.other_plans: list[Plan] | None = None
        self.worst: dict[int, tuple[str | None, float]] = {}  # see _worst_trait

    def plant_need(self) -> int:
        return sum(max(need(sp), 0) for sp in self.mine if not is_carnivore(sp))

    def food_is_short(self) -> bool:
        return self.short

    def threatened(self, sp: Species) -> bool:
        """A foreign carnivore is big enough to eat sp."""
        return any(_attack_size(c) > sp["body_size"] for c in self.foreign_carnivores)

    def prey_count(self, size: int) -> int:
        return sum(1 for s in self.view["seats"] if s["seat"] != self.me for sp in s["species"]
                   if sp["body_size"] < size)


def _attack_size(sp: Species) -> int:
    size = int(sp["body_size"])
    return size + int(sp["population"]) if "Pack Hunting" in traits_of(sp) else size


# -- what a card is worth ----------------------------------------------------------------------------------------

def trait_value(board: Board, name: str, sp: Species) -> float:
    """The worth of trait `name` on species sp (a trait on a surviving species also scores 1 point)."""
    have = traits_of(sp)
    if name in have or name in ("Flight", "Dive Bomb", "Seed Dispersal"):
        return -10.0
    carnivore = "Carnivore" in have
    if name == "Carnivore":
        if any(t in PLANT_ONLY for t in have):
            return -1.0
        mine = sum(1 for s in board.mine if is_carnivore(s))
        return 1.0 + (1.5 if mine == 0 and board.prey_count(sp["body_size"] + 1) else 0.2)
    if name in DEFENSIVE:
        return 1.0 + (2.5 if board.threatened(sp) else 0.2)
    if name in CARNIVORE_HELPERS:
        return 1.0 + (1.8 if carnivore else -0.8)
    if name == "Scavenger":
        return 1.0 + (1.5 if board.foreign_carnivores or carnivore else 0.2)
    if name == "Cooperation":
        return 1.0 + (1.2 if not carnivore and sp is not board.mine[-1] else 0.1)
    if name == "Brood Parasite":
        return 1.5 if sp["avian"] else 0.5
    if carnivore and name in PLANT_ONLY:
        return 0.3
    return 1.0 + FEEDING_VALUE.get(name, 0.5)


def best_trait_use(board: Board, card: str) -> tuple[float, int | None, str | None]:
    """(value, species index, trait to replace) of playing card as a trait on the best species."""
    name = card_name(card)
    best: tuple[float, int | None, str | None] = (-10.0, None, None)
    for i, sp in enumerate(board.mine):
        gain = trait_value(board, name, sp)
        replaced = None
        if len(sp["traits"]) + len(sp["face_down"]) >= 3:
            worst, worth = _worst_trait(board, i)
            if worst is None or worst == "Flight":
                continue
            gain, replaced = gain - worth - 0.5, worst
        if gain > best[0]:
            best = (gain, i, replaced)
    return best


def _worst_trait(board: Board, i: int) -> tuple[str | None, float]:
    """The least worth trait of own species i and its worth (the same for every card: once per decision)."""
    found = board.worst.get(i)
    if found is None:
        sp = board.mine[i]
        worst = min(traits_of(sp), key=lambda t: trait_value_on(board, t, sp), default=None)
        found = board.worst[i] = (worst, trait_value_on(board, worst, sp) if worst is not None else 0.0)
    return found


def trait_value_on(board: Board, name: str, sp: Species) -> float:
    """The worth of a trait already on sp (as if it were not there yet)."""
    others = dict(sp, traits=[c for c in sp["traits"] if card_name(c) != name],
                  face_down=[c for c in sp["face_down"] if c == "?" or card_name(c) != name])
    return trait_value(board, name, others)


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


@dataclass(frozen=True)
class Plan:
    """What to do with a card: use ("trait", "species", "body", "population", "avian") and the species index."""

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
    value, idx, replace = best_trait_use(board, card)
    plans = [Plan(value, "trait", idx, replace), *_other_plans(board)]
    if card_name(card) in ("Dive Bomb", "Seed Dispersal") and any(sp["avian"] for sp in board.mine):
        plans.append(Plan(1.2, "keep"))
    return max(plans, key=lambda p: p.value)


def _other_plans(board: Board) -> list[Plan]:
    """The plans that are the same for every card (a new species, Body Size, Population), once per decision."""
    if board.other_plans is None:
        plans = [Plan(new_species_value(board), "species")]
        if board.mine:
            body = max(range(len(board.mine)), key=lambda i: body_value(board, board.mine[i]))
            pop = max(range(len(board.mine)), key=lambda i: population_value(board, board.mine[i]))
            plans += [Plan(body_value(board, board.mine[body]), "body", body),
                      Plan(population_value(board, board.mine[pop]), "population", pop)]
        board.other_plans = plans
    return board.other_plans


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

    def score(self, view: View, decision: Decision) -> list[float]:
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


def _neutral(bot: EvolutionGreedy, board: Board, option: Any) -> float:
    return 0.0


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


def _side(bot: EvolutionGreedy, board: Board, side: Any) -> float:
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


def _store_fat(bot: EvolutionGreedy, board: Board, amount: Any) -> float:
    return float(amount)


def _prefer_bank(bot: EvolutionGreedy, board: Board, source: Any) -> float:
    return {"bank": 1.0, "cliff": 0.4}.get(source, 0.0)


def _trigger(bot: EvolutionGreedy, board: Board, option: Any) -> float:
    return TRIGGER_ORDER.get(option[1], 1.0)


def _dive_species(bot: EvolutionGreedy, board: Board, i: Any) -> float:
    return float(need(board.mine[i]))


def _discard_species(bot: EvolutionGreedy, board: Board, i: Any) -> float:
    sp = board.mine[i]
    return -min((trait_value_on(board, t, sp) for t in traits_of(sp) if t != "Flight"), default=5.0)


HANDLERS: dict[str, Handler] = {
    "food_card": _food_card, "play": _play, "card_use": _card_use, "trait_species": _trait_species,
    "replace_trait": _replace_trait, "species_side": _side, "avian_card": _discard_card,
    "grow_species": _grow, "discard_trait_species": _discard_species, "discard_trait": _replace_trait,
    "feed": _feed, "intelligence_card": _discard_card, "attack_target": _target, "negate_card": _discard_card,
    "negate_horns": _horns, "store_fat": _store_fat, "nesting_source": _prefer_bank,
    "trigger_order": _trigger, "dive_bomb_species": _dive_species,
    "dive_bomb_source": _prefer_bank,
}
