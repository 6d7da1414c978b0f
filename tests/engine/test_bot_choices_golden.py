"""Golden choices of the built-in greedy bots: every decision of a few seeded games, pinned as a sha256 digest.

The built-in bots' behaviour is part of recorded expectations (demo output, version-test verdicts, analysis results),
so a change that makes them faster must leave every choice alone. Each case plays seeded games between `greedy` and
`greedy_epsNN` bots (engine.cli.simulate.play_one, the seats' bots seeded as in `python -m engine simulate`), or
walks greedy bots through a game whose moves are partly someone else's (each bot answers, then is told what was
played, as replays/analysis.py walks them), and records the sequence of choices as a digest.

Regenerate only after a deliberate change of a bot's behaviour (it refuses to overwrite unless asked):

    python tests/engine/test_bot_choices_golden.py --write            # writes the file when it is missing
    python tests/engine/test_bot_choices_golden.py --write --overwrite
    python tests/engine/test_bot_choices_golden.py                    # compares, prints each case
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from engine.bots import Bot, make_bot
from engine.cli.common import bot_seed, canonical_json
from engine.cli.simulate import lineup_for_game, play_one
from engine.core import State
from engine.registry import load_game

GOLDEN = Path(__file__).resolve().parent / "golden" / "bots" / "greedy_choices.json"
FORMAT = 1
SEEDS = (1, 2, 3)
PLAYERS = {"evolution": (2, 3, 4, 5, 6), "marine": (2, 3, 4)}
LINEUPS = {"eps30": ("greedy", "greedy_eps30"), "eps10_eps50": ("greedy_eps10", "greedy", "greedy_eps50")}


def digest(choices: Sequence[int]) -> dict[str, Any]:
    return {"decisions": len(choices), "sha256": hashlib.sha256(canonical_json(list(choices)).encode()).hexdigest()}


def played_choices(game_name: str, players: int, lineup: str, seed: int) -> list[int]:
    """The choices of one game between built-in bots, the line-up rotated by the seed as simulate rotates it."""
    game = load_game(game_name)
    bots = lineup_for_game([LINEUPS[lineup][s % len(LINEUPS[lineup])] for s in range(players)], seed, rotate=True)
    return list(play_one(game, players, seed, game.validate_options({}), bots).choices)


def walked_answers(game_name: str, players: int, seed: int, copy_every: int = 0) -> list[int]:
    """Greedy bots' answers in a game where half the moves played are random: after each answer the bot is told
    what was played. With copy_every=N the bots are replaced by deep copies every N decisions (as an analysis
    copies its walkers for each playout)."""
    game = load_game(game_name)
    state = game.new_state(players, seed, game.validate_options({}))
    bots: list[Bot] = [make_bot("greedy", game_name, bot_seed(seed, seat)) for seat in range(players)]
    rng = random.Random(seed)
    answers: list[int] = []
    while (decision := state.decision()) is not None:
        if copy_every and len(answers) % copy_every == 0:
            bots = copy.deepcopy(bots)
        bot = bots[decision.seat]
        answer = bot.act(state.view(decision.seat), decision)
        played = answer if rng.random() < 0.5 else rng.randrange(len(decision.options))
        bot.played(decision, played)
        state.choose(played)
        answers.append(answer)
    return answers


def cases() -> list[str]:
    names = [f"{game}-{n}p-{lineup}-seed{seed}" for game, counts in PLAYERS.items() for n in counts
             for lineup in LINEUPS for seed in SEEDS if lineup == "eps30" or seed == SEEDS[0]]
    return names + [f"{game}-{counts[-1]}p-walked-seed{SEEDS[0]}" for game, counts in PLAYERS.items()]


def run_case(name: str) -> list[int]:
    game, players, lineup, seed = name.split("-")
    if lineup == "walked":
        return walked_answers(game, int(players[:-1]), int(seed[4:]))
    return played_choices(game, int(players[:-1]), lineup, int(seed[4:]))


def load_golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("case", cases())
def test_the_greedy_bots_choose_exactly_as_recorded(case: str) -> None:
    expected = load_golden()["cases"].get(case)
    assert expected is not None, f"{case} is not in {GOLDEN.name}: see this module's docstring"
    assert digest(run_case(case)) == expected


@pytest.mark.parametrize("game_name", list(PLAYERS))
def test_deep_copies_of_the_bots_choose_as_the_originals(game_name: str) -> None:
    players = PLAYERS[game_name][-1]
    expected = load_golden()["cases"][f"{game_name}-{players}p-walked-seed{SEEDS[0]}"]
    assert digest(walked_answers(game_name, players, SEEDS[0], copy_every=7)) == expected


@pytest.mark.parametrize("game_name", list(PLAYERS))
def test_a_copy_plays_on_without_moving_the_original(game_name: str) -> None:
    """As an analysis plays out copies of its walkers from one position, then goes on with the walkers."""
    game = load_game(game_name)
    state = game.new_state(3, 5, game.validate_options({}))
    bots: list[Bot] = [make_bot(name, game_name, bot_seed(5, seat))
                       for seat, name in enumerate(["greedy", "greedy_eps30", "random"])]
    for _ in range(150):
        decision = state.decision()
        assert decision is not None
        state.choose(bots[decision.seat].act(state.view(decision.seat), decision))

    def play_on(players: list[Bot], position: State) -> list[int]:
        answers = []
        while (now := position.decision()) is not None:
            answers.append(players[now.seat].act(position.view(now.seat), now))
            position.choose(answers[-1])
        return answers

    assert play_on(copy.deepcopy(bots), state.clone()) == play_on(bots, state)


def test_every_recorded_case_is_still_played() -> None:
    assert sorted(load_golden()["cases"]) == sorted(cases())


def record() -> dict[str, Any]:
    return {"format": FORMAT, "regenerate": "python tests/engine/test_bot_choices_golden.py --write --overwrite",
            "cases": {name: digest(run_case(name)) for name in cases()}}


def main(argv: Sequence[str] | None = None) -> int:
    from golden import golden_main  # tests/golden.py: on pytest's path, and on the script's (below)

    def check() -> Iterator[tuple[str, bool]]:
        golden = load_golden()["cases"]
        return ((name, digest(run_case(name)) == golden.get(name)) for name in cases())

    return golden_main(argv, prog="python tests/engine/test_bot_choices_golden.py",
                       what="the greedy bots' golden choices", path=GOLDEN, record=record, check=check)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
