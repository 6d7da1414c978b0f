"""A search bot for Ludus, for Evolution and Marine: determinized rollouts on top of the built-in greedy bot.

At each decision it asks the engine of the match (bound read-only into the sandbox, `from ludus import sim`) for
possible worlds: full states consistent with everything its seat has seen (`bot.determinize(view, seed)`: the view
plus the history the SDK kept), the cards it cannot see dealt at random. In each world it tries each of its best few
options and lets greedy play both seats on (to the end of the round in Evolution, for 24 decisions in Marine), then
scores the position; the option with the best mean wins. Every option is tried on the same worlds with the same
rollout seeds (common random numbers), so the comparison is between options, not between lucky and unlucky deals;
options clearly behind are dropped as it goes. It stops when one option is left or when `bot.time_left()` says the
move's clock is nearly spent, and never computes off its turn. docs/bots.md, "Search bots", walks through it.

Upload this file as it is.
"""
import math
import random
import statistics
import time

import ludus

from engine.bots.greedy import SCORERS, GreedyBot
from engine.core import Decision
from engine.marine.board import score_tile

bot = ludus.Bot()
own = {}  # greedy's scorer for our seat, kept for the match: it remembers its plans (engine/bots/greedy.py)
HORIZON = {"evolution": 90, "marine": 24}  # at most this many decisions greedy plays on after each tried option
ROUND_END = {"evolution": True, "marine": False}  # a rollout stops at the end of the round
WIDTH = 5  # the options tried: greedy's best few
MARGIN_MS = 30  # the clock's margin: the reply's way back, a busy host's wake-up lag
WIN = 100.0  # a finished game: winning outweighs any margin of points
BOARD = 0.25  # Marine: the weight of the final scoring as it stands (it best predicted greedy games' winners)
KEEP = 1.0  # greedy's own choice is kept unless another does this much better on average
MIN_WORLDS, Z = 3, 2.0  # worlds before an option can be dropped; how many standard errors behind drop it


def evaluate(state, seat):
    """The position for seat: its score lead over the best other seat, plus WIN if the game is over and won. In
    Marine, before the end, plus BOARD times the lead the final scoring would give if the game ended now."""
    outcome = state.outcome()
    scores = outcome.scores if outcome is not None else state.scores()
    if outcome is None and bot.game.name == "marine":
        scores = [score + BOARD * final for score, final in zip(scores, final_scoring(state), strict=True)]
    lead = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
    if outcome is not None:
        lead += WIN if outcome.ranks[seat] == 1 else -WIN
    return lead


def final_scoring(state):
    """Marine: what each seat's tiles and control markers would score at the end (engine/marine/placement.py)."""
    got = [0] * state.n
    for tile in state.tile_order:
        for seat, vp in score_tile(state.terrain[tile], state.species[tile], state.animals):
            got[seat] += vp
    for pawn in state.special:
        if pawn.controller is not None:
            got[pawn.controller] += pawn.target
    return got


def rollout(world, option, seed):
    """Play option in a copy of world, then greedy for every seat: in Evolution to the end of the round (its
    extinction is when unfed species die and their points go), in Marine for HORIZON decisions; the position for us."""
    state = ludus.sim.clone(world)
    state.choose(option)
    players = [GreedyBot(bot.game.name, seed + s) for s in range(bot.hello["players"])]
    start = world.round
    for _ in range(HORIZON[bot.game.name]):
        decision = state.decision()
        if decision is None or (ROUND_END[bot.game.name] and state.round != start):
            break
        state.choose(players[decision.seat].act(state.view(decision.seat), decision))
    return evaluate(state, bot.seat)


def scorer():
    if own.get("hello") is not bot.hello:  # a new match
        own.update(hello=bot.hello, scorer=SCORERS[bot.game.name](), bank=None, lag=0.0)
    return own["scorer"]


def margin():
    """MARGIN_MS, plus twice what the clock has lately charged beyond our own count (the bank pays a move's time
    over move_ms: on a busy host waking up and the reply's way back take longer). Once that has cost half the bank,
    no more search (infinite margin): greedy's answer at once, so a host that stays slow cannot drain the rest."""
    bank = bot.clock.get("bank_ms", 0)
    if own["bank"] is not None:
        own["lag"] = 0.7 * own["lag"] + 0.3 * max(0, own["bank"] - bank)
    own["bank"] = bank
    if bank < bot.hello.get("clock", {}).get("bank_ms", 0) / 2:
        return math.inf
    return MARGIN_MS + 2 * own["lag"]


def candidates(view, decision):
    """Greedy's best WIDTH options, its favourite first (the one played when there is no time to search)."""
    scores = scorer().score(view, decision)
    order = sorted(range(len(decision.options)), key=lambda i: -scores[i])
    return order[:WIDTH]


def act(view, message):
    decision = Decision(seat=bot.seat, kind=message["kind"], options=message["options"],
                        prompt=message.get("prompt", ""))
    tried = candidates(view, decision)
    choice = search(view, tried, margin()) if len(tried) > 1 else tried[0]
    scorer().chosen(choice)  # greedy's memory follows what we played
    return choice


def search(view, tried, spare):
    """The best of the tried options by mean lead over paired worlds and rollouts, greedy's favourite on a tie.
    After each world, an option clearly behind the best (by Z standard errors of their paired difference, or level
    with it in every world so far) is dropped, so the time goes to the options still in doubt; one left, it stops."""
    rng = random.Random(len(bot.history) * 7919 + bot.seat)
    leads = {option: [] for option in tried}
    live, slowest = list(tried), 0.0
    while len(live) > 1 and bot.time_left() > spare + slowest:  # no world begun that the clock cannot see through
        began = time.monotonic()
        seed = rng.randrange(1 << 30)
        try:
            world = bot.determinize(view, seed)
        except ValueError:  # no context yet: a decide sent before the engine read our hello (docs/bots.md)
            break
        found = {}
        for option in live:
            if bot.time_left() <= spare:
                break
            found[option] = rollout(world, option, seed)
        if len(found) < len(live):
            break  # only worlds where every live option was tried count: the comparison stays paired
        for option, lead in found.items():
            leads[option].append(lead)
        slowest = max(slowest, (time.monotonic() - began) * 1000)
        live = prune(live, leads, tried[0])
    return max(live, key=lambda o: value(leads[o], o == tried[0]))


def value(leads, favourite):
    return (statistics.fmean(leads) if leads else 0.0) + (KEEP if favourite else 0.0)


def prune(live, leads, favourite):
    """The live options that could still be best: the best itself and those less than Z standard errors of their
    paired difference behind it (one level with it in every world is not)."""
    worlds = len(leads[live[0]])
    if worlds < MIN_WORLDS:
        return live
    best = max(live, key=lambda o: value(leads[o], o == favourite))
    kept = []
    for option in live:
        gaps = [b - o + (KEEP if best == favourite else 0.0) - (KEEP if option == favourite else 0.0)
                for b, o in zip(leads[best], leads[option], strict=True)]
        if option == best or statistics.fmean(gaps) < Z * statistics.pstdev(gaps) / worlds ** 0.5:
            kept.append(option)
    return kept


if __name__ == "__main__":
    ludus.run(act, bot=bot)
