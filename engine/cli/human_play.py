"""`python -m engine play`: a human plays one seat in the terminal against built-in bots.

The other seats take the `--bots` list in seat order, cycling. Options are numbered from 0, the index a bot
would answer. Only public information is printed: for a bot's turn, the kind of decision and the public events,
never the option it chose (a secret food card must stay secret). EOF or `q` on stdin ends the session cleanly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from engine.bots import Bot, make_bot
from engine.cli.common import Renderer, bot_seed, describe, format_decision, format_outcome
from engine.core import Decision, Game, State

HUMAN = "you"


def seat_lineup(players: int, human_seat: int, bots: Sequence[str]) -> list[str]:
    """The human in human_seat; the bots cycle over the other seats in seat order."""
    others = iter(bots[i % len(bots)] for i in range(players))
    return [HUMAN if seat == human_seat else next(others) for seat in range(players)]


class HumanSession:
    """One game in the terminal; run() returns the exit code."""

    def __init__(self, game: Game, state: State, lineup: list[str], seed: int, render: Renderer,
                 stdin: TextIO, stdout: TextIO) -> None:
        self.game, self.state, self.lineup, self.render = game, state, lineup, render
        self.stdin, self.stdout = stdin, stdout
        self.bots: dict[int, Bot] = {
            seat: make_bot(name, game.name, bot_seed(seed, seat)) for seat, name in enumerate(lineup) if name != HUMAN
        }

    def say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

    def run(self) -> int:
        human = self.lineup.index(HUMAN)
        self.say(f"{self.game.title}: you are seat {human}; " + ", ".join(
            f"seat {s}: {n}" for s, n in enumerate(self.lineup)))
        while (decision := self.state.decision()) is not None:
            if decision.seat in self.bots:
                choice = self.bot_choice(decision)
                self.say(f"seat {decision.seat} ({self.lineup[decision.seat]}): {decision.kind}")
            else:
                picked = self.ask_human(decision)
                if picked is None:
                    self.say("bye")
                    return 0
                choice = picked
            self.show_events(self.state.apply(decision.options[choice]))
        self.finish()
        return 0

    def bot_choice(self, decision: Decision) -> int:
        bot = self.bots[decision.seat]
        view = self.state.view(decision.seat) if bot.needs_view else None
        return bot.act(view, decision)

    def ask_human(self, decision: Decision) -> int | None:
        """Show the seat's view and the options; read until a valid index. None on EOF or quit."""
        self.say("")
        rendered = self.render(self.state.view(decision.seat))
        self.say(rendered)
        if "[0] " not in rendered:  # the game's own rendering may already list the numbered options
            self.say(format_decision(decision))
        while True:
            self.stdout.write(f"your choice [0-{len(decision.options) - 1}, q to quit]: ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line or line.strip().lower() in ("q", "quit", "exit"):
                self.say("")
                return None
            choice = parse_choice(line, len(decision.options))
            if choice is not None:
                return choice
            self.say(f"please type a number from 0 to {len(decision.options) - 1}")

    def show_events(self, events: list[Any]) -> None:
        for event in events:
            self.say(f"  * {describe(event)}")

    def finish(self) -> None:
        outcome = self.state.outcome()
        self.say("")
        self.say(self.render(self.state.view(None)))
        if outcome is not None:
            self.say(format_outcome(outcome, self.lineup))


def parse_choice(line: str, count: int) -> int | None:
    text = line.strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if 0 <= value < count else None
