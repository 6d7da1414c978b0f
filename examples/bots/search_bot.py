"""A search bot for Ludus, for Evolution and Marine: determinized rollouts on top of the built-in greedy bot.

At each decision it asks the engine of the match (bound read-only into the sandbox, `from ludus import sim`) for
possible worlds: full states consistent with everything its seat has seen (`bot.determinize(view, seed)`: the view
plus the history the SDK kept), the cards it cannot see dealt at random. In each world it tries each of its best few
options and lets greedy play both seats on for a few dozen decisions, then scores the position; the option with
the best mean wins. Every option is tried on the same worlds with the same rollout seeds (common random numbers),
so the comparison is between options, not between lucky and unlucky deals. It stops when `bot.time_left()` says
the move's clock is nearly spent, and never computes off its turn. docs/bots.md, "Search bots", walks through it.

Upload this file as it is.
"""
import random
import time

import ludus

from engine.bots.greedy import SCORERS, GreedyBot
from engine.core import Decision

bot = ludus.Bot()
own = {}  # greedy's scorer for our seat, kept for the match: it remembers its plans (engine/bots/greedy.py)
HORIZON = {"evolution": 30, "marine": 24}  # decisions greedy plays on after each tried option
WIDTH = 5  # the options tried: greedy's best few
MARGIN_MS = 30  # the clock's margin: the reply's way back, a busy host's wake-up lag
WIN = 100.0  # a finished game: winning outweighs any margin of points
KEEP = 1.0  # greedy's own choice is kept unless another does this much better on average


def evaluate(state, seat):
    """The position for seat: its score lead over the best other seat, plus WIN if the game is over and won."""
    outcome = state.outcome()
    scores = outcome.scores if outcome is not None else state.scores()
    lead = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
    if outcome is not None:
        lead += WIN if outcome.ranks[seat] == 1 else -WIN
    return lead


def rollout(world, option, seed):
    """Play option in a copy of world, then greedy for every seat up to the horizon; the position for us."""
    state = ludus.sim.clone(world)
    state.choose(option)
    players = [GreedyBot(bot.game.name, seed + s) for s in range(bot.hello["players"])]
    for _ in range(HORIZON[bot.game.name]):
        decision = state.decision()
        if decision is None:
            break
        state.choose(players[decision.seat].act(state.view(decision.seat), decision))
    return evaluate(state, bot.seat)


def scorer():
    if own.get("hello") is not bot.hello:  # a new match
        own.update(hello=bot.hello, scorer=SCORERS[bot.game.name](), bank=None, lag=0.0)
    return own["scorer"]


def margin():
    """MARGIN_MS, plus twice what the clock has lately charged beyond our own count (the bank pays a move's time
    over move_ms: on a busy host waking up and the reply's way back take longer), plus more once the bank runs low."""
    bank = bot.clock.get("bank_ms", 0)
    if own["bank"] is not None:
        own["lag"] = 0.7 * own["lag"] + 0.3 * max(0, own["bank"] - bank)
    own["bank"] = bank
    return MARGIN_MS + 2 * own["lag"] + (50 if bank < 500 else 0)


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
    """The tried option with the best total lead over paired worlds and rollouts, greedy's favourite on a tie."""
    rng = random.Random(len(bot.history) * 7919 + bot.seat)
    totals = dict.fromkeys(tried, 0.0)
    worlds, slowest = 0, 0.0
    while bot.time_left() > spare + slowest:  # no world begun that the clock cannot see through
        began = time.monotonic()
        seed = rng.randrange(1 << 30)
        try:
            world = bot.determinize(view, seed)
        except ValueError:  # no context yet: a decide sent before the engine read our hello (docs/bots.md)
            break
        leads = {}
        for option in tried:
            if bot.time_left() <= spare:
                break
            leads[option] = rollout(world, option, seed)
        if len(leads) < len(tried):
            break  # only worlds where every option was tried count: the sums stay paired
        worlds += 1
        slowest = max(slowest, (time.monotonic() - began) * 1000)
        for option, lead in leads.items():
            totals[option] += lead
    return max(tried, key=lambda o: totals[o] + (KEEP * worlds if o == tried[0] else 0.0))


if __name__ == "__main__":
    ludus.run(act, bot=bot)
