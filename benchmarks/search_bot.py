"""How often the example search bot (examples/bots/search_bot.py) beats the built-in greedy bot, with a 95 % interval.

Two-player games, seat-rotated: game 2k and 2k+1 share the seed k, the search bot in seat 0 then in seat 1. The bot
runs in this process, through the SDK's own loop (`ludus.run`, fed the protocol-3 lines the worker would send: the
seat's view as a patch, its events, the clock), with the same code and the same clock per move as in the sandbox;
`--jobs` plays games in parallel processes. `--sandbox N` plays N more games through the real sandbox, as an
uploaded bot against an in-process greedy seat (workers.play.play_game), and counts their faults.

    python -m benchmarks.search_bot --game evolution --games 100 --move-ms 200
    python -m benchmarks.search_bot --game marine --games 100 --move-ms 200 --jobs 4 --json

A game won counts 1, a shared first place 1/2. The interval is Wilson's score interval. The bot's clock is wall
time, so a loaded host (or many --jobs on few cores) gives it less search per move: the report gives the CPU
milliseconds it spent per move (median), to read the result by. `--cpu-clock` makes the bot's clock (and the
harness's) count the process's CPU time instead: each move gets its budget of CPU as on a quiet core, however
loaded the host, and a game lasts longer. Each game's result goes to stderr as it ends.

    python -m benchmarks.search_bot --game evolution --games 100 --move-ms 200 --jobs 3 --cpu-clock
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import types
from collections.abc import Iterator
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from engine import protocol, sdk
from engine.bots.greedy import GreedyBot
from engine.registry import load_game

BOT_FILE = Path(__file__).resolve().parent.parent / "examples" / "bots" / "search_bot.py"
BANK_MS = 2000


def load_bot(source: bytes, cpu_clock: bool = False) -> Any:
    """A fresh module of the example bot's source (read once, as the run starts), `import ludus` being the SDK.
    With cpu_clock, the SDK's and the bot's clock count this process's CPU time instead of wall time."""
    sys.modules.setdefault("ludus", sdk)
    module = types.ModuleType("search_bot_example")
    module.__file__ = str(BOT_FILE)
    exec(compile(source, str(BOT_FILE), "exec"), module.__dict__)  # noqa: S102 - the repository's own example
    if cpu_clock:
        clock = types.SimpleNamespace(monotonic=time.process_time)
        sdk.time = module.time = clock  # type: ignore[assignment]
    return module


class Match:
    """One game, the search bot in `seat`, greedy in the other; `lines()` is the bot's stdin."""

    def __init__(self, game: str, seed: int, seat: int, move_ms: int) -> None:
        self.game, self.seat, self.move_ms = load_game(game), seat, move_ms
        self.state = self.game.new_state(2, seed)
        self.greedy = GreedyBot(game, seed * 2 + 1 - seat)
        self.replies: list[bytes] = []
        self.cpu_ms: list[float] = []
        self.bank_ms = BANK_MS
        self.timeouts = 0  # moves over move_ms plus what was left of the bank: the sandbox would kill it there

    def write(self, data: bytes) -> int:  # the bot's stdout
        if not data.startswith(b'{"type"'):
            self.replies.append(data)
        return len(data)

    def flush(self) -> None:
        pass

    def charge(self, ms: float) -> None:
        """The worker's clock (workers/play.py): the time over move_ms comes from the bank."""
        if ms > self.move_ms + self.bank_ms:
            self.timeouts += 1
        self.bank_ms = max(0, self.bank_ms - max(0, int(ms) - self.move_ms))

    def lines(self) -> Iterator[bytes]:
        yield protocol.encode(protocol.hello(self.game.name, self.game.rules_version, self.seat, 2, {},
                                             {"move_ms": self.move_ms, "bank_ms": BANK_MS}, history=True))
        sent: Any = None
        events: list[Any] = []
        seq = 0
        while (decision := self.state.decision()) is not None:
            seq += 1
            if decision.seat != self.seat:
                choice = self.greedy.act(self.state.view(decision.seat), decision)
            else:
                view = self.state.view(self.seat)
                patch = protocol.view_patch(sent, view) if sent is not None else None
                sent = view
                started = time.process_time()
                context = self.state.seat_context(self.seat)
                clock = {"move_ms": self.move_ms, "bank_ms": self.bank_ms}
                line = protocol.encode(protocol.decide(seq, view, decision, clock, patch, events, context))
                wall = sdk.time.monotonic()  # the bot's own clock: wall time, or CPU time with --cpu-clock
                yield line
                self.charge((sdk.time.monotonic() - wall) * 1000)
                self.cpu_ms.append((time.process_time() - started) * 1000)
                events = []
                choice = protocol.parse_reply(self.replies.pop(), seq, len(decision.options))
            events += self.game.seat_events(self.seat, self.state.choose(choice))
        outcome = self.state.outcome()
        assert outcome is not None
        yield protocol.encode(protocol.result(outcome.to_dict()))


def play_one(args: tuple[str, int, int, int, bytes, bool]) -> dict[str, Any]:
    """One in-process game: the search bot's points (1, 1/2 or 0) and its CPU ms per move."""
    game, seed, seat, move_ms, source, cpu_clock = args
    match = Match(game, seed, seat, move_ms)
    module = load_bot(source, cpu_clock)
    sdk.run(module.act, stdin=match.lines(), stdout=match, bot=module.bot)
    outcome = match.state.outcome()
    assert outcome is not None
    return {"seed": seed, "seat": seat, "points": points(outcome.to_dict(), seat),
            "cpu_ms": statistics.median(match.cpu_ms), "timeouts": match.timeouts, "bank_left_ms": match.bank_ms}


def points(outcome: dict[str, Any], seat: int) -> float:
    ranks = outcome["ranks"]
    if ranks[seat] != 1:
        return 0.0
    return 1.0 if ranks.count(1) == 1 else 0.5


def wilson(points_won: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a proportion (ties counted as halves)."""
    if n == 0:
        return 0.0, 1.0
    p = points_won / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_sandboxed(game: str, seed: int, seat: int, move_ms: int, source: bytes) -> dict[str, Any]:
    """One game with the bot uploaded to the real sandbox: its points and its faults."""
    from workers.play import play_game
    from workers.sandbox.seat import SandboxedSeat
    from workers.seats import Clock, InProcessSeat

    bot = SandboxedSeat(source, "search_bot.py")
    greedy = InProcessSeat("greedy", game, seed * 2 + 1 - seat)
    players = [bot, greedy] if seat == 0 else [greedy, bot]
    result = play_game(game, 2, seed, {}, players, clock=Clock(move_ms=move_ms, bank_ms=BANK_MS))
    assert result.outcome is not None
    faults = [a.get("fault") for a in result.actions if a["seat"] == seat and a.get("fault")]
    cpu = [a["cpu_ms"] for a in result.actions if a["seat"] == seat and "cpu_ms" in a]
    return {"seed": seed, "seat": seat, "points": points(result.outcome.to_dict(), seat), "faults": faults,
            "caught": bot.caught, "cpu_ms": statistics.median(cpu) if cpu else None,
            "log_tail": bot.log()[-300:] if faults else ""}


def summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    won = sum(g["points"] for g in games)
    low, high = wilson(won, len(games))
    cpu = [g["cpu_ms"] for g in games if g.get("cpu_ms") is not None]
    return {"games": len(games), "points": won, "win_rate": won / len(games) if games else 0.0,
            "ci95": [round(low, 3), round(high, 3)], "median_cpu_ms_per_move": statistics.median(cpu) if cpu else None,
            "timeouts": sum(g.get("timeouts", 0) for g in games),
            "min_bank_left_ms": min((g["bank_left_ms"] for g in games if "bank_left_ms" in g), default=None)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=["evolution", "marine"], default="evolution")
    parser.add_argument("--games", type=int, default=100, help="in-process games (seat-rotated: an even number)")
    parser.add_argument("--move-ms", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    parser.add_argument("--sandbox", type=int, default=0, help="games through the real sandbox, after the others")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="in-process games: the bot's clock counts its CPU time, not wall time (a loaded host "
                             "starves a wall clock; this gives each move its budget of CPU, as a quiet core would); "
                             "the worker's clock and the timeouts are then counted in CPU time too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    source = BOT_FILE.read_bytes()
    todo = [(args.game, args.seed + i // 2, i % 2, args.move_ms, source, args.cpu_clock) for i in range(args.games)]
    started = time.monotonic()
    games = []
    with Pool(args.jobs) as pool:
        for game in pool.imap(play_one, todo) if args.jobs > 1 else map(play_one, todo):
            print(json.dumps(game), file=sys.stderr, flush=True)  # each game as it ends: a long run's progress
            games.append(game)
    report: dict[str, Any] = {"game": args.game, "move_ms": args.move_ms, "seed": args.seed, "jobs": args.jobs,
                              "clock": "cpu" if args.cpu_clock else "wall",
                              "in_process": summary(games), "seconds": round(time.monotonic() - started)}
    if args.sandbox:
        boxed = []
        for i in range(args.sandbox):
            boxed.append(play_sandboxed(args.game, args.seed + 10_000 + i // 2, i % 2, args.move_ms, source))
            print(json.dumps(boxed[-1]), file=sys.stderr, flush=True)
        report["sandbox"] = {**summary(boxed), "faults": sum(len(g["faults"]) for g in boxed),
                             "caught_off_turn": sum(1 for g in boxed if g["caught"]),
                             "fault_logs": [g["log_tail"] for g in boxed if g["faults"]]}
    if args.json:
        print(json.dumps(report))
    else:
        for way in ("in_process", "sandbox"):
            if way in report:
                s = report[way]
                print(f"{args.game} {way}: search bot vs greedy, {s['games']} games at {args.move_ms} ms a move: "
                      f"win rate {s['win_rate']:.1%} (95% CI {s['ci95'][0]:.1%}-{s['ci95'][1]:.1%}), "
                      f"median CPU {s['median_cpu_ms_per_move']:.0f} ms a move, {s['timeouts']} timeouts"
                      + (f", {s['faults']} faults, caught off its turn in {s['caught_off_turn']}" if way == "sandbox"
                         else ""))
    return report


if __name__ == "__main__":
    main()
