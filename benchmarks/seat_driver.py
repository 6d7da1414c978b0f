"""One checkout's sandboxed seat, measured in a process of its own (run by benchmarks/sandbox.py).

    python benchmarks/seat_driver.py --root CHECKOUT --config '{"cgroups": "off"}' --starts 5 --games 1 --matches 2

It imports the sandboxed seat (`workers.sandbox.seat`, or a baseline's `workers.sandbox`) from CHECKOUT, so this
checkout and a baseline (`--baseline`) are measured by the same code, and prints one JSON object of samples in seconds:
- start: a seat from nothing to its first reply (unpacking, the uid lease, the group, bwrap, the interpreter);
- round_trip: `SandboxedSeat.decide` per decision, replaying every decision of a 3-player Evolution game;
- hand_off: the same, alternating between two seats as a match does, each decision passing the turn (with
  `workers.seats.hand_turn` where the checkout has it: the seat that waits is frozen, the other thawed);
- match_start / match_stop: four seats of one match to each one's first reply, then from the result until all four
  gave everything back; the way that checkout's match loop does it (`workers.seats.start_seats`/`finish_seats`
  where it has them: together; else one after another, as its `play_game` did).
- charged_over: what a bot that sleeps 50 ms a decision is charged beyond them (reply.ms);
- timeout_over / timeout_charged_over: a bot that never answers, with a 300 ms limit: how long past the limit its
  decide returned, and how much past it the bot was charged. The tests assert the logical bounds only (at least the
  limit, at most the wall time); these are the speeds.
Config keys the checkout's SandboxConfig does not know are dropped (a baseline has no `cgroups`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from typing import Any

ECHO_BOT = b"import ludus\nludus.run(lambda view, decision: 0)\n"
SLEEP_BOT = b"import time, ludus\nludus.run(lambda view, decision: time.sleep(0.05) or 0)\n"  # 50 ms a decision
# Answers its first decision, then never again.
HANG_BOT = (b"import time, ludus\nseen = []\n"
            b"ludus.run(lambda view, decision: seen.append(1) or len(seen) > 1 and time.sleep(60) or 0)\n")
CLOCK = {"move_ms": 1000, "bank_ms": 10_000}
SHORT_CLOCK = {"move_ms": 100, "bank_ms": 200}  # a timeout after 300 ms


def capture(seed: int = 1, players: int = 3) -> list[tuple[int, dict[str, Any], Any]]:
    from engine import load_game

    state = load_game("evolution").new_state(players, seed, None)
    rng = random.Random(seed)
    found = []
    while (decision := state.decision()) is not None:
        found.append((len(found) + 1, state.view(decision.seat), decision))
        state.choose(rng.randrange(len(decision.options)))
    return found


class Checkout:
    """The imported checkout: its seat class, its config and its way of starting and stopping seats."""

    def __init__(self, config: dict[str, Any]) -> None:
        from engine import protocol
        from workers import seats

        try:
            from workers.sandbox import seat as sandbox  # docs/architecture.md: the sandbox package
        except ImportError:
            from workers import sandbox  # type: ignore[no-redef]  # a baseline from before workers/sandbox/

        known = {f.name for f in dataclasses.fields(sandbox.SandboxConfig)}
        self.config = sandbox.SandboxConfig(**{k: v for k, v in config.items() if k in known})
        self.protocol, self.sandbox, self.seats = protocol, sandbox, seats

    def seat(self, source: bytes = ECHO_BOT) -> Any:
        return self.sandbox.SandboxedSeat(source, "echo.py", self.config, "bwrap")

    def start(self, players: list[Any], clock: dict[str, int] = CLOCK) -> None:
        hello = self.protocol.hello("evolution", "1", 0, len(players), {}, clock)
        together = getattr(self.seats, "start_seats", None)
        if together is not None:
            together(players, [hello] * len(players))
        else:
            for player in players:
                player.start(hello)

    def finish(self, players: list[Any]) -> None:
        together = getattr(self.seats, "finish_seats", None)
        if together is not None:
            together(players, {})
            return
        for player in players:
            player.finish(self.protocol.result({}))
            player.log()


def start_once(code: Checkout, first: tuple[int, dict[str, Any], Any]) -> float:
    t0 = time.perf_counter()
    seat = code.seat()
    code.start([seat])
    seat.decide(first[0], first[1], first[2], CLOCK["bank_ms"])
    elapsed = time.perf_counter() - t0
    code.finish([seat])
    return elapsed


def round_trips(code: Checkout, decisions: list[tuple[int, dict[str, Any], Any]]) -> list[float]:
    seat = code.seat()
    code.start([seat])
    seat.decide(0, {}, decisions[0][2], CLOCK["bank_ms"])  # the first decide includes start-up
    times = []
    for seq, view, decision in decisions:
        t0 = time.perf_counter()
        reply = seat.decide(seq, view, decision, CLOCK["bank_ms"])
        times.append(time.perf_counter() - t0)
        assert reply.fault is None, reply
    code.finish([seat])
    return times


def hand_offs(code: Checkout, decisions: list[tuple[int, dict[str, Any], Any]]) -> list[float]:
    players = [code.seat(), code.seat()]
    code.start(players)
    hand_turn = getattr(code.seats, "hand_turn", None)
    times = []
    for seq, view, decision in decisions:
        t0 = time.perf_counter()
        if hand_turn is not None:
            hand_turn(players, seq % 2)
        reply = players[seq % 2].decide(seq, view, decision, CLOCK["bank_ms"])
        times.append(time.perf_counter() - t0)
        assert reply.fault is None, reply
    code.finish(players)
    return times[2:]  # the first decide of each seat includes its start-up


def match_once(code: Checkout, first: tuple[int, dict[str, Any], Any]) -> tuple[float, float]:
    t0 = time.perf_counter()
    players = [code.seat() for _ in range(4)]
    code.start(players)
    for player in players:
        assert player.decide(first[0], first[1], first[2], CLOCK["bank_ms"]).fault is None
    t1 = time.perf_counter()
    code.finish(players)
    return t1 - t0, time.perf_counter() - t1


def charged_over(code: Checkout, decisions: list[tuple[int, dict[str, Any], Any]]) -> list[float]:
    """What a bot that sleeps 50 ms a decision is charged beyond its 50 ms (its reply's ms): the worker's share of a
    move that the clock counts as the bot's (tests/workers/test_sandbox_seat.py asserts only that it is >= 50 ms and
    at most the wall time)."""
    seat = code.seat(SLEEP_BOT)
    code.start([seat])
    seat.decide(0, {}, decisions[0][2], CLOCK["bank_ms"])  # the first decide includes start-up
    over = []
    for seq, view, decision in decisions[:20]:
        reply = seat.decide(seq, view, decision, CLOCK["bank_ms"])
        assert reply.fault is None, reply
        over.append(reply.ms / 1000 - 0.050)
    code.finish([seat])
    return over


def timeout_over(code: Checkout, first: tuple[int, dict[str, Any], Any]) -> tuple[float, float]:
    """A bot that never answers: how long past its limit the decide returned (the kill included), and how much more
    than its limit it was charged (the tests assert only that it is charged its limit and no more than passed)."""
    seat = code.seat(HANG_BOT)
    code.start([seat], SHORT_CLOCK)
    assert seat.decide(0, {}, first[2], SHORT_CLOCK["bank_ms"]).fault is None  # the start-up allowance is spent
    limit = (SHORT_CLOCK["move_ms"] + SHORT_CLOCK["bank_ms"]) / 1000
    t0 = time.perf_counter()
    reply = seat.decide(first[0], first[1], first[2], SHORT_CLOCK["bank_ms"])
    wall = time.perf_counter() - t0
    assert reply.fault == "timeout", reply
    code.finish([seat])
    return wall - limit, reply.ms / 1000 - limit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--config", default="{}")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--matches", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    code = Checkout(json.loads(args.config))
    decisions = capture()
    samples: dict[str, list[float]] = {"start": [], "round_trip": [], "hand_off": [], "match_start": [],
                                       "match_stop": [], "charged_over": [], "timeout_over": [],
                                       "timeout_charged_over": []}
    for _ in range(args.starts):
        samples["start"].append(start_once(code, decisions[0]))
    for _ in range(args.games):
        samples["round_trip"] += round_trips(code, decisions)
        samples["hand_off"] += hand_offs(code, decisions)
    for _ in range(args.matches):
        started, stopped = match_once(code, decisions[0])
        samples["match_start"].append(started)
        samples["match_stop"].append(stopped)
    samples["charged_over"] += charged_over(code, decisions)
    wall_over, charged = timeout_over(code, decisions[0])
    samples["timeout_over"].append(wall_over)
    samples["timeout_charged_over"].append(charged)
    print(json.dumps(samples))


if __name__ == "__main__":
    main()
