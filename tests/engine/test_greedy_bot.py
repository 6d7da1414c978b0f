"""The built-in `greedy` bot: legal, reproducible, view-only, and clearly better than `random`."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis_profiles import is_probed

from engine.bots import make_bot
from engine.bots.greedy import SCORERS, GreedyBot, generic_scores, is_pass_like
from engine.cli.simulate import simulate
from engine.core import Decision
from engine.registry import game_names, load_game


def test_greedy_plays_only_offered_options_and_never_changes_its_view(game_name: str, players: int) -> None:
    game = load_game(game_name)
    state = game.new_state(players, 21)
    bots = [make_bot("greedy", game_name, seat) for seat in range(players)]
    steps = 0
    while (decision := state.decision()) is not None:
        view = state.view(decision.seat)
        kept = copy.deepcopy(view)
        choice = bots[decision.seat].act(view, decision)
        assert 0 <= choice < len(decision.options)
        assert view == kept, "greedy changed the view it was given"
        state.choose(choice)
        steps += 1
        assert steps < 50_000
    assert state.outcome() is not None


def test_greedy_is_reproducible_from_its_seed(game_name: str) -> None:
    game = load_game(game_name)
    runs = [simulate(game, game.min_players, 3, 8, game.validate_options({}), ["greedy"]) for _ in range(2)]
    assert runs[0]["digest"] == runs[1]["digest"]


def test_greedy_needs_the_view_like_an_uploaded_bot() -> None:
    assert GreedyBot("evolution", 1).needs_view is True


@pytest.mark.parametrize("name", ["greedy", "greedy_eps30"])
@pytest.mark.parametrize("seed", [8, 9])
def test_a_decision_answered_without_the_view_is_answered_as_with_it(game_name: str, name: str, seed: int) -> None:
    """A caller may skip the view where needs_view_for says so (replays/analysis.py's playouts): copies of the
    bots given the view only when they ask answer exactly as those always given it, through a game where a third
    of the moves played are random (plans not followed), and some views were skipped."""
    game = load_game(game_name)
    state = game.new_state(3, seed)
    seeing = [make_bot(name, game_name, seat) for seat in range(3)]
    asking = copy.deepcopy(seeing)
    rng, skipped = random.Random(seed), 0
    while (decision := state.decision()) is not None:
        seat, view = decision.seat, state.view(decision.seat)
        needs = asking[seat].needs_view_for(decision)
        skipped += not needs
        answer = seeing[seat].act(view, decision)
        assert asking[seat].act(view if needs else None, decision) == answer, decision
        played = answer if rng.random() < 0.7 else rng.randrange(len(decision.options))
        seeing[seat].played(decision, played)
        asking[seat].played(decision, played)
        state.choose(played)
    assert skipped > 0


@pytest.mark.parametrize(("option", "passes"), [
    ("pass", True), ("Done", True), (None, True), (False, True), ({"type": "pass"}, True),
    ({"action": "skip"}, True), (0, False), ("attack", False), ({"type": "play", "card": 3}, False),
])
def test_the_generic_rule_knows_a_pass_when_it_sees_one(option: object, passes: bool) -> None:
    assert is_pass_like(option) is passes


def test_for_an_unknown_game_greedy_acts_rather_than_passes() -> None:
    decision = Decision(0, "turn", ["pass", {"type": "play", "card": 1}, {"type": "play", "card": 2}, None])
    assert generic_scores({}, decision) == [-1.0, 0.0, 0.0, -1.0]
    picks = {GreedyBot("no_such_game", seed).act({}, decision) for seed in range(30)}
    assert picks == {1, 2}


def test_for_an_unknown_game_greedy_passes_when_passing_is_all_there_is() -> None:
    rng = random.Random(0)
    decision = Decision(0, "turn", ["pass"])
    assert GreedyBot("no_such_game", rng.randrange(100)).act({}, decision) == 0


def games_with_a_heuristic() -> list[str]:
    return [name for name in game_names() if name in SCORERS]


@pytest.mark.parametrize("heuristic_game", games_with_a_heuristic())
def test_greedy_in_one_seat_clearly_beats_three_random_bots(heuristic_game: str) -> None:
    game = load_game(heuristic_game)
    players = max(game.min_players, min(4, game.max_players))
    result = simulate(game, players, 24, 500, game.validate_options({}), ["greedy"] + ["random"] * (players - 1))
    assert result["win_rate_by_bot"]["greedy"] >= 0.6, result
    assert result["mean_score_by_bot"]["greedy"] > result["mean_score_by_bot"]["random"]


@pytest.mark.parametrize("heuristic_game", games_with_a_heuristic())
def test_the_heuristic_scores_every_option_of_every_decision_kind(heuristic_game: str) -> None:
    """Called directly (GreedyBot would fall back to the generic rule on an error), over every decision of random
    games, from the acting seat's view: a rules change that adds an option shape fails here."""
    import math

    game = load_game(heuristic_game)
    kinds = set()
    for players in (game.min_players, game.max_players):
        for seed in filter(is_probed, range(5)):  # seeds 0 and 3 under the check profile
            state = game.new_state(players, seed)
            scorers = [SCORERS[heuristic_game]() for _ in range(players)]
            rng = random.Random(seed)
            while (decision := state.decision()) is not None:
                scores = scorers[decision.seat].score(state.view(decision.seat), decision)
                assert len(scores) == len(decision.options) and all(math.isfinite(s) for s in scores)
                choice = rng.randrange(len(decision.options))
                scorers[decision.seat].chosen(choice)
                kinds.add(decision.kind)
                state.choose(choice)
    assert len(kinds) > 3
