"""`python -m engine`: simulate games between built-in bots, play one as a human, show a saved state.
Standard library only; rich is imported lazily for the progress bar.

Bad input (an unknown game or bot, a bad player count, bad options, a bad state file) prints one line on stderr
and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from engine.cli import human_play, simulate
from engine.cli.common import CliError, load_renderer, parse_bot_list, parse_game_options
from engine.cli.human_play import HumanSession, seat_lineup
from engine.cli.show import read_state_file, show_text
from engine.cli.simulate import format_summary, progress_bar
from engine.core import IllegalAction, InvalidOptions, InvalidState
from engine.registry import game_names, load_game

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (no usage dump), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description=__doc__.split("\n\n")[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    raw = argparse.RawDescriptionHelpFormatter
    _add_simulate(commands.add_parser("simulate", help="play many games between built-in bots",
                                      description=simulate.__doc__, formatter_class=raw))
    _add_play(commands.add_parser("play", help="play a game in the terminal against built-in bots",
                                  description=human_play.__doc__, formatter_class=raw))
    _add_show(commands.add_parser("show", help="print the view and pending decision of a saved state"))
    return parser


def _add_game_args(p: argparse.ArgumentParser, players_default: int) -> None:
    p.add_argument("--game", default="evolution", help=f"one of: {', '.join(game_names())}")
    p.add_argument("--players", type=int, default=players_default, help=f"default {players_default}")
    p.add_argument("--seed", type=int, default=0, help="the seed of the (first) game; default 0")
    p.add_argument("--bots", default="random", help="comma-separated built-in bots, cycled over the seats")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (value read as JSON when it parses); repeatable")
    p.add_argument("--options", metavar="JSON", help="game options as one JSON object")


def _add_simulate(p: argparse.ArgumentParser) -> None:
    _add_game_args(p, 4)
    p.add_argument("--games", type=int, default=100, help="default 100")
    p.add_argument("--no-rotate", action="store_true", help="keep the same line-up in every game")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")


def _add_play(p: argparse.ArgumentParser) -> None:
    _add_game_args(p, 3)
    p.add_argument("--seat", type=int, default=0, help="the human's seat")


def _add_show(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help='a state JSON file: {"game": ..., "state": {...}} or a raw state dict')
    p.add_argument("--game", help="the game of a raw state dict")
    p.add_argument("--seat", type=int, help="render this seat's view (default: omniscient)")
    p.add_argument("--advance", action="store_true",
                   help="take the forced steps the state has pending first, printing their events")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(_dispatch(args))
    except (CliError, InvalidOptions, InvalidState) as exc:
        print(f"python -m engine {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "simulate":
        return _simulate(args)
    if args.command == "play":
        return _play(args)
    return _show(args)


def _simulate(args: argparse.Namespace) -> int:
    game = load_game(args.game)
    game.check_players(args.players)
    bots = parse_bot_list(args.bots)
    options = parse_game_options(game, args.option, args.options)
    if args.games < 1:
        raise CliError(f"--games must be at least 1, got {args.games}")
    show_bar = sys.stderr.isatty() and not args.no_progress
    with progress_bar(args.games, show_bar) as tick:
        result = simulate.simulate(game, args.players, args.games, args.seed, options, bots, not args.no_rotate, tick)
    print(json.dumps(result) if args.json else format_summary(result))
    return 0


def _play(args: argparse.Namespace) -> int:
    game = load_game(args.game)
    game.check_players(args.players)
    bots = parse_bot_list(args.bots)
    options = parse_game_options(game, args.option, args.options)
    if not 0 <= args.seat < args.players:
        raise CliError(f"--seat must be from 0 to {args.players - 1}, got {args.seat}")
    state = game.new_state(args.players, args.seed, options)
    lineup = seat_lineup(args.players, args.seat, bots)
    session = HumanSession(game, state, lineup, args.seed, load_renderer(game), sys.stdin, sys.stdout)
    try:
        return session.run()
    except IllegalAction as exc:  # a built-in bot or the engine misbehaved: report it, it is not bad input
        print(f"python -m engine play: engine error: {exc}", file=sys.stderr)
        return 1


def _show(args: argparse.Namespace) -> int:
    if args.game is not None:
        load_game(args.game)
    game, state = read_state_file(args.file, args.game)
    if args.advance:
        for event in state.advance():
            print(json.dumps(event))
    print(show_text(game, state, args.seat))
    return 0

