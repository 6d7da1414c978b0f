"""The engine API for search bots (docs/bots.md, "The engine API"): clone, scores, seat_events, seat_context and a
seat's determinization. The fairness tests are hostile: they change what a seat cannot see and require that
nothing the seat is given, and nothing determinize returns, changes with it."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hidden import hidden_card_tokens, perturbations
from hypothesis import given, settings, strategies
from hypothesis_profiles import examples, is_probed
from search_helpers import Moment, moments, random_choices, stored_games

from engine.bots import make_bot
from engine.core import InvalidOptions, State
from engine.registry import load_game

GAMES = ("evolution", "marine")
QUICK_OPTIONS: dict[str, dict[str, Any]] = {"evolution": {"deck": "short"}, "marine": {"length": "short"}}


def random_moments(game_name: str, seed: int, players: int = 2) -> list[tuple[Moment, dict[str, Any],
                                                                           dict[str, Any], list[Any]]]:
    """(moment, the seat's view, its context, a copy of its history) at every decision of a seeded random game."""
    game = load_game(game_name)
    options = QUICK_OPTIONS[game_name]
    choices = random_choices(game, players, seed, options)
    found = []
    for m in moments(game, game.new_state(players, seed, options), choices):
        kept = Moment(game, m.state.clone(), m.seat, list(m.history))  # moments() plays its state on
        found.append((kept, m.state.view(m.seat), m.state.seat_context(m.seat), kept.history))
    return found


def determinize(m: Moment, seed: int) -> State:
    return m.game.determinize(m.seat, m.state.view(m.seat), m.history, seed, m.state.seat_context(m.seat))


# -- clone and scores --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("game_name", GAMES)
def test_it_clones_without_a_json_round_trip_and_the_copies_evolve_apart(game_name: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game(game_name)
    state = game.new_state(2, 11, QUICK_OPTIONS[game_name])
    rng = random.Random(11)
    for _ in range(60):
        state.choose(rng.randrange(len(state.decision().options)))  # type: ignore[union-attr]
    before = state.to_dict()

    def no_json(*args: Any) -> Any:
        raise AssertionError("clone went through JSON")

    with monkeypatch.context() as patched:
        patched.setattr(type(state), "to_dict", no_json)
        patched.setattr(type(game), "state_from_dict", no_json)
        other = state.clone()
    assert other.to_dict() == before
    while (decision := other.decision()) is not None:
        other.choose(rng.randrange(len(decision.options)))
    assert state.to_dict() == before  # the original did not move with its clone
    assert other.is_over() and not state.is_over()


@pytest.mark.parametrize("game_name", GAMES)
def test_it_scores_every_seat_at_every_state_as_the_game_counts_them(game_name: str) -> None:
    game = load_game(game_name)
    state = game.new_state(3, 5, QUICK_OPTIONS[game_name])
    rng = random.Random(5)
    while (decision := state.decision()) is not None:
        view = state.view(None)
        if game_name == "evolution":  # the bag, Population and traits (ruling 23), face-down ones included
            assert state.scores() == [s["public_score"] + s["bag"] for s in view["seats"]]
        else:
            assert state.scores() == view["scores"]
        state.choose(rng.randrange(len(decision.options)))
    outcome = state.outcome()
    assert outcome is not None and state.scores() == list(outcome.scores)


# -- seat_events ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("game_name", GAMES)
def test_it_gives_each_seat_its_events_with_no_card_it_cannot_see(game_name: str) -> None:
    """Every event of both games is public (docs/rules/*.md, "What is hidden"): seat_events is a copy of them, and
    no seat's events ever spell a card hidden from it."""
    game = load_game(game_name)
    for seed in range(3):
        state = game.new_state(3, seed, QUICK_OPTIONS[game_name])
        rng = random.Random(seed)
        while (decision := state.decision()) is not None:
            events = state.choose(rng.randrange(len(decision.options)))
            data = state.to_dict()
            for seat in range(3):
                seen = game.seat_events(seat, events)
                assert seen == events
                text = json.dumps(seen)
                assert not [t for t in hidden_card_tokens(game_name, data, seat) if t in text]
            if events and seen:
                seen[0]["event"] = "changed"
                assert events[0]["event"] != "changed"  # a copy: the history shares nothing with the game


def test_it_rejects_a_seat_that_is_not_an_index() -> None:
    for seat in (-1, "0", True, None):
        with pytest.raises(ValueError, match="seat"):
            load_game("evolution").seat_events(seat, [])  # type: ignore[arg-type]


# -- fairness (hostile) --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("game_name", GAMES)
def test_a_seat_context_and_determinization_never_change_with_what_the_seat_cannot_see(game_name: str) -> None:
    """Two real states that give the seat the same view (and history) give it the same context and the same
    determinization for the same seed, whatever is hidden from it."""
    game = load_game(game_name)
    rng = random.Random(3)
    for step, (m, view, context, history) in enumerate(random_moments(game_name, 3)):
        if step % 7 or not is_probed(step // 7):
            continue
        mine = game.determinize(m.seat, view, history, 99, context).to_dict()
        for where, data in perturbations(game_name, m.state.to_dict(), m.seat, rng):
            other = game.state_from_dict(data)
            assert other.view(m.seat) == view, where
            assert other.seat_context(m.seat) == context, f"{where}: the context tells hidden information"
            theirs = game.determinize(m.seat, other.view(m.seat), history, 99, other.seat_context(m.seat))
            assert theirs.to_dict() == mine, where


@pytest.mark.parametrize("game_name", GAMES)
def test_a_seat_context_names_no_card_hidden_from_the_seat(game_name: str) -> None:
    """Only the seat's own card in play (the one it chose) may show: it has seen it."""
    for m, _view, context, _history in random_moments(game_name, 4, players=3):
        data = m.state.to_dict()
        own = {json.dumps(arg) for step in data["stack"] if len(step) > 1 and step[1] == m.seat for arg in step[2:]}
        text = json.dumps(context)
        assert not [t for t in hidden_card_tokens(game_name, data, m.seat) - own if t in text]


def test_an_opponents_sampled_hand_is_independent_of_its_true_hand() -> None:
    """Over a fixed set of seeds, the sampled opponent hand shares as many cards with its true hand as with other
    hands it could hold (the same view): the mean overlaps differ by less than a bound many standard errors wide,
    and with fixed seeds the test cannot flake."""
    game = load_game("evolution")
    m, view, context, history = next(x for x in random_moments("evolution", 8)
                                     if x[0].state.view(None)["phase"] == "play"
                                     and x[0].state.view(None)["seats"][1 - x[0].seat]["hand_count"] >= 4)
    opponent = 1 - m.seat
    rng = random.Random(8)
    alternatives = [data["seats"][opponent]["hand"] for _, data in
                    (p for _ in range(40) for p in perturbations("evolution", m.state.to_dict(), m.seat, rng))]
    true_hand = m.state.to_dict()["seats"][opponent]["hand"]
    assert any(alt != true_hand for alt in alternatives)
    true_overlap, other_overlap = [], []
    for seed in range(300):
        sampled = game.determinize(m.seat, view, history, seed, context).to_dict()["seats"][opponent]["hand"]
        true_overlap.append(_overlap(sampled, true_hand))
        other_overlap.append(sum(_overlap(sampled, alt) for alt in alternatives) / len(alternatives))
    mean_true, mean_other = sum(true_overlap) / 300, sum(other_overlap) / 300
    spread = (sum((x - mean_true) ** 2 for x in true_overlap) / 299) ** 0.5
    assert abs(mean_true - mean_other) < 5 * spread / 300 ** 0.5 + 0.05


def _overlap(a: list[str], b: list[str]) -> int:
    rest = list(b)
    count = 0
    for card in a:
        if card in rest:
            rest.remove(card)
            count += 1
    return count


# -- consistency ---------------------------------------------------------------------------------------------------

def check_consistent(m: Moment, seed: int, play_on: bool) -> None:
    view, context, history = m.state.view(m.seat), m.state.seat_context(m.seat), copy.deepcopy(m.history)
    inputs = copy.deepcopy((view, context, history))
    state = m.game.determinize(m.seat, view, history, seed, context)
    assert (view, context, history) == inputs  # the inputs are not changed
    wire = json.loads(json.dumps([view, history, context]))  # as a bot in its sandbox gets them: JSON only
    assert m.game.determinize(m.seat, wire[0], wire[1], seed, wire[2]).to_dict() == state.to_dict()
    assert state.view(m.seat) == view
    assert state.decision() == m.state.decision()
    assert state.seat_context(m.seat) == context
    if play_on:
        rng = random.Random(seed)
        while (decision := state.decision()) is not None:
            state.choose(rng.randrange(len(decision.options)))
        assert state.outcome() is not None


@pytest.mark.parametrize("game_name", GAMES)
def test_every_determinization_of_a_short_game_gives_the_seats_view_and_decision(game_name: str) -> None:
    for step, (m, *_rest) in enumerate(random_moments(game_name, 1)):
        if is_probed(step):
            check_consistent(m, step, play_on=step % 25 == 0)


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, *_ in stored_games()])
def test_every_determinization_of_the_stored_games_gives_the_seats_view_and_decision(name: str) -> None:
    """Every decision of every golden playthrough and stored replay (both games, every player count, Marine under
    both rules versions); from every 20th one the determinization is played on to the end with legal actions."""
    _, game, state, choices = next(g for g in stored_games() if g[0] == name)
    for step, m in enumerate(moments(game, state, choices)):
        if is_probed(step):
            check_consistent(m, step, play_on=step % 20 == 0)


@pytest.mark.parametrize("game_name", GAMES)
def test_it_is_deterministic_and_the_seed_changes_what_is_unseen(game_name: str) -> None:
    m, view, context, history = random_moments(game_name, 2)[30]
    game = m.game
    first = game.determinize(m.seat, view, history, 5, context).to_dict()
    assert game.determinize(m.seat, view, history, 5, context).to_dict() == first
    others = [game.determinize(m.seat, view, history, seed, context).to_dict() for seed in range(6, 12)]
    assert any(o["deck"] != first["deck"] for o in others)


def test_marine_keeps_the_unseen_asteroid_among_the_bottom_five() -> None:
    m, view, context, history = random_moments("marine", 6)[10]
    assert "Asteroid" not in view["discard"]
    for seed in range(40):
        deck = m.game.determinize(m.seat, view, history, seed, context).to_dict()["deck"]
        assert "Asteroid" in deck[-5:]


# -- bad input -------------------------------------------------------------------------------------------------------

def _bad_inputs(game_name: str) -> list[tuple[str, Any, str]]:
    m, view, context, history = random_moments(game_name, 2)[12]
    other = 1 - m.seat
    late = copy.deepcopy(view)
    late["deck_count"] += 50
    return [
        ("not a view", ["view"], "needs a"),
        ("another game's view", {**view, "game": "chess"}, "needs a"),
        ("another seat's view", m.state.view(other), "not seat"),
        ("no decision", {**view, "decision": None}, "at a decision"),
        ("no context", (view, None), "context"),
        ("another game's context", (view, {**context, "game": "chess"}), "context"),
        ("a history that is no list", (view, context, "events"), "history"),
        ("a view that does not add up", late, "card"),
        ("a context without its options", (view, {k: v for k, v in context.items() if k != "options"}), "lacks"),
        ("a view without its board", {k: v for k, v in view.items() if k not in ("seats", "tiles")},
         "not one the engine gives"),
        ("a history that is a string", (view, context, "food"), "history"),
    ]


@pytest.mark.parametrize("game_name", GAMES)
def test_it_rejects_inputs_it_cannot_use_with_a_clear_message(game_name: str) -> None:
    m, view, context, history = random_moments(game_name, 2)[12]
    for what, bad, message in _bad_inputs(game_name):
        args = [view, history, context]
        if isinstance(bad, tuple):
            args[0], args[2] = bad[0], bad[1]
            if len(bad) == 3:
                args[1] = bad[2]
        else:
            args[0] = bad
        with pytest.raises(ValueError, match=message):
            m.game.determinize(m.seat, args[0], args[1], 1, args[2])
            pytest.fail(what)
    with pytest.raises(InvalidOptions, match="seed"):
        m.game.determinize(m.seat, view, history, "1", context)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
@settings(max_examples=examples(20))
@given(seed=strategies.integers(0, 10_000), players=strategies.integers(2, 4), bot=strategies.sampled_from(
    ["greedy", "random"]), where=strategies.floats(0, 1))
def test_any_determinization_of_a_game_of_the_built_in_bots_is_consistent(game_name: str, seed: int, players: int,
                                                                           bot: str, where: float) -> None:
    """A game of built-in bots (default options) stopped anywhere: the determinization gives the seat's view and
    decision, and plays on to the end with legal actions."""
    game = load_game(game_name)
    state = game.new_state(players, seed)
    bots = [make_bot(bot, game_name, seed + s) for s in range(players)]
    choices = []
    while (decision := state.decision()) is not None:
        choices.append(bots[decision.seat].act(state.view(decision.seat), decision))
        state.choose(choices[-1])
    stop = int(where * (len(choices) - 1))
    for step, m in enumerate(moments(game, game.new_state(players, seed), choices)):
        if step == stop:
            check_consistent(m, seed, play_on=True)
            return
