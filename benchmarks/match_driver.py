"""One checkout's match runner, measured in a process of its own (run by benchmarks/match.py).

    python benchmarks/match_driver.py --root CHECKOUT --game evolution --players 4   # DATABASE_URL in the env

It imports the engine and the runner from CHECKOUT, so this checkout and a baseline (`--baseline`) are measured by
the same code. It migrates the (empty) database it is given, creates the entrants (built-in greedy bots, and the
example bot of examples/bots uploaded once per seat), prints one `{"ready": ...}` line, then reads one seed per line
on stdin and answers each with one JSON line: that seed played four ways, in turn:

- engine_builtin:  the engine alone with the built-in bots called directly (the runner's own seat seeds);
- builtin:         `workers.runner.run_match` on a match of those built-ins (claim, play, verify, record);
- engine_example:  the engine alone with the example bot's `act` called in this process on the seat's view;
- sandboxed:       `run_match` on a match of the uploaded example bot, one sandbox per seat.

Each pair is the same game (same seed, same choices). Besides the seconds, it reports the runner's phase timings,
the decide lines' sizes, and the statements (and competition row locks) of the result write.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "bots"


def example_act(path: Path) -> Callable[[Any, Any], int]:
    """The example bot's act, without its `ludus.run(act)` loop: a stand-in ludus module catches it."""
    caught: list[Callable[[Any, Any], int]] = []
    stand_in = types.ModuleType("ludus")
    stand_in.run = lambda act, **_: caught.append(act)  # type: ignore[attr-defined]
    saved = sys.modules.get("ludus")
    sys.modules["ludus"] = stand_in
    try:
        exec(compile(path.read_text(), str(path), "exec"), {"__name__": "example_bot"})
    finally:
        if saved is None:
            sys.modules.pop("ludus", None)
        else:
            sys.modules["ludus"] = saved
    return caught[0]


class Counter:
    """Statements per phase of a match (an execute wrapper on the runner's connection)."""

    def __init__(self) -> None:
        self.phase = "other"
        self.counts: dict[str, int] = {}
        self.locks = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.counts[self.phase] = self.counts.get(self.phase, 0) + 1
        head = sql.split(" WHERE ")[0]
        # A statement that locks the competition row: an update of it, or a read of it for update (not an update of
        # another table that reads it, as the result's compare-and-set reads the rating_seq just taken).
        on_competition = sql.startswith(('UPDATE "tournaments_ladder"', 'UPDATE "tournaments_tournament"')) or (
            ('"tournaments_ladder"' in head or '"tournaments_tournament"' in head) and "FOR UPDATE" in sql)
        if self.phase == "record" and on_competition:
            self.locks += 1
        return execute(sql, params, many, context)

    def during(self, phase: str, operation: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            before, self.phase = self.phase, phase
            try:
                return operation(*args, **kwargs)
            finally:
                self.phase = before
        return wrapped


class Driver:
    def __init__(self, game: str, players: int) -> None:
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from engine import load_game
        from tournaments.builtins import ensure_builtin
        from tournaments.models import Bot, BotVersion, Ladder
        from workers import runner

        try:
            from workers.sandbox import seat as sandbox  # docs/architecture.md: the sandbox package
        except ImportError:
            from workers import sandbox  # type: ignore[no-redef]  # a baseline from before workers/sandbox/

        self.game_name, self.players = game, players
        self.game = load_game(game)
        self.options = self.game.validate_options({})
        user = get_user_model().objects.create(username=f"bench{os.getpid()}")
        self.ladder = Ladder.objects.create(name=f"bench-{os.getpid()}", game=game, options=self.options,
                                            players_per_match=players)
        self.builtins = [ensure_builtin(f"bench-greedy-{i}", "greedy") for i in range(players)]
        path = EXAMPLES / f"{game}_bot.py"
        source = path.read_bytes()
        import hashlib

        self.uploads = []
        for i in range(players):
            bot = Bot.objects.create(owner=user, name=f"example-{i}", game=game)
            self.uploads.append(BotVersion.objects.create(
                bot=bot, number=1, source=source, filename=path.name, sha256=hashlib.sha256(source).hexdigest(),
                size=len(source), status="active"))
        self.act = example_act(path)
        # Instruments: the runner's phase timings, its statements, and the decide lines sent to sandboxes.
        self.timings: list[Any] = []
        timings_class = runner.Timings
        driver = self

        class KeptTimings(timings_class):  # type: ignore[misc, valid-type]
            def __init__(self) -> None:
                super().__init__()
                driver.timings.append(self)

        setattr(runner, "Timings", KeptTimings)  # noqa: B010 (instruments the checkout's own module)
        self.counter = Counter()
        for name, phase in (("record_result", "record"), ("save_progress", "progress")):
            if hasattr(runner, name):
                setattr(runner, name, self.counter.during(phase, getattr(runner, name)))
        self.seats_ms: dict[str, float] = {}  # wall time of starting (to every seat booted) and stopping the seats
        from workers import play

        for name, phase in (("start_seats", "seats_start"), ("finish_seats", "seats_stop")):
            if hasattr(play, name):
                setattr(play, name, self.timed(phase, getattr(play, name)))
        # The seats' own CPU over the game: their control groups' counters read once all are booted (start_seats
        # returned) and again as the result is about to be sent (finish_seats). Counters read around every decide
        # cost the worker two reads a decision (counted in its own CPU) and missed what a seat did after its reply.
        self.seats_cpu_ns = 0
        self.seat_groups: list[tuple[Any, int]] = []
        started, finished = play.start_seats, play.finish_seats

        def counted_start(players: Any, *args: Any, **kwargs: Any) -> Any:
            booted = started(players, *args, **kwargs)
            groups = [getattr(player, "group", None) for player in players]  # None: no control group, or a built-in
            driver.seat_groups = [(group, group.cpu_ns()) for group in groups
                                  if group is not None and not group.removed]
            return booted

        def counted_finish(*args: Any, **kwargs: Any) -> Any:
            for group, before in driver.seat_groups:
                if not group.removed:  # a seat killed during the game took its group (and its counter) with it
                    driver.seats_cpu_ns += group.cpu_ns() - before
            driver.seat_groups = []
            return finished(*args, **kwargs)

        play.start_seats, play.finish_seats = counted_start, counted_finish  # type: ignore[assignment]
        self.play_cpu = 0.0  # the worker's CPU seconds in the game loop (the runner's play phase)
        play_game = getattr(runner, "play_game")  # noqa: B009 (the checkout's own name, patched below)

        def cpu_timed_play(*args: Any, **kwargs: Any) -> Any:
            c0 = time.process_time()
            try:
                return play_game(*args, **kwargs)
            finally:
                driver.play_cpu += time.process_time() - c0

        setattr(runner, "play_game", cpu_timed_play)  # noqa: B010
        self.decide_bytes: list[int] = []
        send = sandbox.SandboxedSeat._send

        def counted_send(seat: Any, data: bytes, *args: Any, **kwargs: Any) -> bool:
            if data.startswith(b'{"type":"decide"'):
                driver.decide_bytes.append(len(data))
            return bool(send(seat, data, *args, **kwargs))

        setattr(sandbox.SandboxedSeat, "_send", counted_send)  # noqa: B010
        self.run_match = runner.run_match
        from workers import dispatch

        # A checkout whose runner sends the verification from a thread (workers/sender.py): waited for after each
        # match, so the next measurement does not share the CPU with it.
        self.flush: Callable[[], Any] = getattr(dispatch, "flush_verifications", lambda: None)

    def timed(self, phase: str, operation: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return operation(*args, **kwargs)
            finally:
                self.seats_ms[phase] = self.seats_ms.get(phase, 0.0) + (time.perf_counter() - t0) * 1000
        return wrapped

    def engine_alone(self, seed: int, acts: list[Callable[[Any, Any], int]], needs_view: list[bool],
                     as_json: bool) -> dict[str, float]:
        """Seconds for the whole game, of which building views; the number of decisions."""
        state = self.game.new_state(self.players, seed, self.options)
        views, decisions = 0.0, 0
        c0 = time.process_time()
        t0 = time.perf_counter()
        while (decision := state.decision()) is not None:
            view = None
            if needs_view[decision.seat]:
                tv = time.perf_counter()
                view = state.view(decision.seat)
                views += time.perf_counter() - tv
            asked = ({"kind": decision.kind, "options": list(decision.options), "prompt": decision.prompt}
                     if as_json else decision)
            state.choose(acts[decision.seat](view, asked))
            decisions += 1
        return {"seconds": time.perf_counter() - t0, "view_seconds": views, "decisions": decisions,
                "cpu_seconds": time.process_time() - c0}

    def builtin_bots(self, seed: int) -> tuple[list[Callable[[Any, Any], int]], list[bool]]:
        from engine.bots import make_bot
        from tournaments.formats.round_robin import derive_seed

        bots = [make_bot("greedy", self.game_name, derive_seed(seed, number, version.pk))
                for number, version in enumerate(self.builtins)]
        return [bot.act for bot in bots], [bot.needs_view for bot in bots]

    def through_runner(self, seed: int, versions: list[Any]) -> dict[str, Any]:
        from django.db import connection

        from tournaments.models import Match, Seat

        match = Match.objects.create(ladder=self.ladder, game=self.game_name, num_players=self.players, seed=seed,
                                     options=self.options)
        Seat.objects.bulk_create([Seat(match=match, number=n, bot_version=v) for n, v in enumerate(versions)])
        self.counter.counts, self.counter.locks = {}, 0
        self.seats_ms, self.seats_cpu_ns, self.play_cpu = {}, 0, 0.0
        with connection.execute_wrapper(self.counter):
            c0 = time.process_time()
            t0 = time.perf_counter()
            outcome = self.run_match(match.pk)
            seconds = time.perf_counter() - t0
            self.flush()  # what the runner handed to a thread of its own: its CPU counts, its wall time does not
            cpu = time.process_time() - c0
        if outcome != "finished":
            raise RuntimeError(f"match {match.pk} (seed {seed}): {outcome}")
        seats_cpu = self.seats_cpu_ns / 1e9  # with the worker's CPU: a cost a busy machine does not inflate
        return {"seconds": seconds, "phases": {**self.timings[-1].ms, **self.seats_ms},
                "statements": dict(self.counter.counts), "competition_locks": self.counter.locks,
                "cpu_seconds": cpu, "play_cpu_seconds": self.play_cpu, "seats_cpu_seconds": seats_cpu}

    def play(self, seed: int) -> dict[str, Any]:
        acts, needs = self.builtin_bots(seed)
        found: dict[str, Any] = {"seed": seed}
        found["engine_builtin"] = self.engine_alone(seed, acts, needs, as_json=False)
        found["builtin"] = self.through_runner(seed, self.builtins)
        found["engine_example"] = self.engine_alone(seed, [self.act] * self.players, [True] * self.players,
                                                    as_json=True)
        self.decide_bytes = []
        found["sandboxed"] = self.through_runner(seed, self.uploads)
        found["decide_bytes"] = self.decide_bytes
        return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--game", default="evolution")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever the checkout prints goes to stderr; stdout carries only the answers
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    driver = Driver(args.game, args.players)
    print(json.dumps({"ready": args.root}), file=out, flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(driver.play(int(line))), file=out, flush=True)


if __name__ == "__main__":
    main()
