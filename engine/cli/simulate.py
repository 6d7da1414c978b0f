"""`python -m engine simulate`: play many games between built-in bots in this process and summarise them.

Seats and seeds, exactly:
- the base line-up cycles the `--bots` list over the seats: seat s gets bots[s % len(bots)];
- game g (0-based) uses game seed `seed + g`;
- with rotation (the default), game g rotates the line-up by g seats: seat s plays base[(s - g) % players], so
  the bot of base seat 0 sits in seat g % players. Over a multiple of `players` games every bot sits in every
  seat equally often. `--no-rotate` keeps the base line-up in every game;
- the bot in seat s of a game with seed G is seeded with `bot_seed(G, s)` (engine.cli.common).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engine.bots import Bot, make_bot
from engine.cli.common import bot_seed, canonical_json
from engine.core import Game, Outcome

MAX_STEPS = 1_000_000  # a game longer than this is an engine bug, not a long game


@dataclass(frozen=True)
class GameRecord:
    """One finished game: its seed, who sat where, the choice indices and the outcome."""

    index: int
    seed: int
    lineup: tuple[str, ...]
    choices: tuple[int, ...]
    outcome: Outcome
    labels: dict[str, list[str]] = field(default_factory=dict)  # Game.balance_labels at setup; not in the digest

    def to_digest_json(self) -> str:
        return canonical_json(
            {"index": self.index, "seed": self.seed, "lineup": list(self.lineup),
             "choices": list(self.choices), "outcome": self.outcome.to_dict()}
        )


def base_lineup(bots: Sequence[str], players: int) -> list[str]:
    return [bots[seat % len(bots)] for seat in range(players)]


def lineup_for_game(base: Sequence[str], index: int, rotate: bool) -> tuple[str, ...]:
    """Seat s of game `index` plays base[(s - index) % players] when rotating."""
    players = len(base)
    shift = index if rotate else 0
    return tuple(base[(seat - shift) % players] for seat in range(players))


def play_one(game: Game, players: int, seed: int, options: dict[str, Any], lineup: Sequence[str],
             index: int = 0) -> GameRecord:
    """Play one game between built-in bots; views are built only for the decisions a bot reads them for."""
    state = game.new_state(players, seed, options)
    labels = game.balance_labels(state)
    bots: list[Bot] = [make_bot(name, game.name, bot_seed(seed, seat)) for seat, name in enumerate(lineup)]
    choices: list[int] = []
    decision = state.decision()
    while decision is not None:
        seat = decision.seat
        bot = bots[seat]
        view = state.view(seat) if bot.needs_view_for(decision) else None
        choice = bot.act(view, decision)
        if not 0 <= choice < len(decision.options):
            raise RuntimeError(f"bot {lineup[seat]!r} in seat {seat} chose {choice} of {len(decision.options)}")
        state.apply(decision.options[choice])
        choices.append(choice)
        if len(choices) > MAX_STEPS:
            raise RuntimeError(f"{game.name} seed {seed}: no end after {MAX_STEPS} decisions")
        decision = state.decision()
    outcome = state.outcome()
    if outcome is None:
        raise RuntimeError(f"{game.name} seed {seed}: no decision left but no outcome")
    return GameRecord(index, seed, tuple(lineup), tuple(choices), outcome, labels)


@dataclass
class Tally:
    """Running totals over the games of a simulation."""

    players: int
    games: int = 0
    decisions: int = 0
    wins_by_seat: list[int] = field(default_factory=list)
    wins_by_bot: dict[str, int] = field(default_factory=dict)
    seats_by_bot: dict[str, int] = field(default_factory=dict)
    score_by_bot: dict[str, int] = field(default_factory=dict)
    rank_by_bot: dict[str, int] = field(default_factory=dict)
    balance: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # label kind -> label -> [seats, wins]

    def __post_init__(self) -> None:
        self.wins_by_seat = [0] * self.players

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.decisions += len(record.choices)
        for seat, name in enumerate(record.lineup):
            won = record.outcome.ranks[seat] == 1
            self.wins_by_seat[seat] += won
            _bump(self.wins_by_bot, name, won)
            _bump(self.seats_by_bot, name, 1)
            _bump(self.score_by_bot, name, record.outcome.scores[seat])
            _bump(self.rank_by_bot, name, record.outcome.ranks[seat])
        for kind, labels in record.labels.items():
            for seat, label in enumerate(labels):
                counts = self.balance.setdefault(kind, {}).setdefault(label, [0, 0])
                counts[0] += 1
                counts[1] += record.outcome.ranks[seat] == 1


def _bump(counts: dict[str, int], key: str, amount: int) -> None:
    counts[key] = counts.get(key, 0) + amount


def simulate(game: Game, players: int, games: int, seed: int, options: dict[str, Any], bots: Sequence[str],
             rotate: bool = True, on_game: Callable[[], None] | None = None) -> dict[str, Any]:
    """Play `games` games and return the summary dict that `--json` prints."""
    base = base_lineup(bots, players)
    tally = Tally(players)
    digest = hashlib.sha256()
    digest.update(canonical_json({"game": game.name, "rules_version": game.rules_version, "players": players,
                                  "options": options}).encode())
    start = time.perf_counter()
    for index in range(games):
        record = play_one(game, players, seed + index, options, lineup_for_game(base, index, rotate), index)
        tally.add(record)
        digest.update(b"\n" + record.to_digest_json().encode())
        if on_game is not None:
            on_game()
    seconds = time.perf_counter() - start
    return summary(game, players, games, seed, options, base, rotate, tally, seconds, digest.hexdigest())


def summary(game: Game, players: int, games: int, seed: int, options: dict[str, Any], base: Sequence[str],
            rotate: bool, tally: Tally, seconds: float, digest: str) -> dict[str, Any]:
    seats = tally.seats_by_bot
    per_second = (lambda n: round(n / seconds, 1)) if seconds > 0 else (lambda n: 0.0)
    return {
        "game": game.name, "rules_version": game.rules_version, "players": players, "options": options,
        "seed": seed, "bots": list(base), "rotate": rotate,
        "games": tally.games, "decisions": tally.decisions, "seconds": round(seconds, 3),
        "games_per_sec": per_second(tally.games), "decisions_per_sec": per_second(tally.decisions),
        "wins_by_seat": tally.wins_by_seat,
        "win_share_by_seat": [round(w / tally.games, 4) for w in tally.wins_by_seat] if tally.games else [],
        "balance": {kind: {label: {"seats": n, "wins": w, "win_share": round(w / n, 4)}
                           for label, (n, w) in sorted(labels.items())}
                    for kind, labels in sorted(tally.balance.items())},
        "wins_by_bot": dict(sorted(tally.wins_by_bot.items())),
        "seats_by_bot": dict(sorted(seats.items())),
        "win_rate_by_bot": {k: round(v / seats[k], 4) for k, v in sorted(tally.wins_by_bot.items())},
        "mean_score_by_bot": {k: round(v / seats[k], 3) for k, v in sorted(tally.score_by_bot.items())},
        "mean_rank_by_bot": {k: round(v / seats[k], 3) for k, v in sorted(tally.rank_by_bot.items())},
        "digest": digest,
    }


@contextmanager
def progress_bar(total: int, enabled: bool) -> Iterator[Callable[[], None] | None]:
    """A rich progress bar on stderr when enabled and rich is importable; else nothing."""
    if not enabled:
        yield None
        return
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:
        yield None
        return
    with Progress(console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("games", total=total)
        yield lambda: progress.advance(task)


def format_summary(result: dict[str, Any]) -> str:
    """The readable table printed without --json."""
    lines = [
        f"{result['game']} (rules {result['rules_version']}), {result['players']} players, "
        f"{result['games']} games from seed {result['seed']}, bots {','.join(result['bots'])}"
        f"{' rotated' if result['rotate'] else ''}",
        f"{result['decisions']} decisions in {result['seconds']:.2f} s: "
        f"{result['games_per_sec']:.1f} games/s, {result['decisions_per_sec']:.0f} decisions/s",
        "",
    ]
    width = max([9, *map(len, result["seats_by_bot"])])
    lines.append(f"{'bot':<{width}}  seats   wins  win rate  mean score  mean rank")
    for name, seats in result["seats_by_bot"].items():
        wins, rate = result["wins_by_bot"][name], result["win_rate_by_bot"][name]
        lines.append(f"{name:<{width}} {seats:>6} {wins:>6}  {rate:>8.1%}"
                     f"  {result['mean_score_by_bot'][name]:>10.2f}  {result['mean_rank_by_bot'][name]:>9.2f}")
    lines += ["", "wins by seat: " + ", ".join(f"{s}: {w}" for s, w in enumerate(result["wins_by_seat"]))]
    for kind, labels in result["balance"].items():
        lines.append(f"wins by {kind.replace('_', ' ')}: " + ", ".join(
            f"{label} {c['wins']}/{c['seats']} ({c['win_share']:.1%})" for label, c in labels.items()))
    lines.append(f"digest: {result['digest']}")
    return "\n".join(lines)
