"""Match analysis (docs/analysis.md): the marks find the moves that gave something up, the work resumes where it
stood, is cached per match, seat, bot and games, and gives the same bytes for the same request."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from replays import analysis
from replays.analysis_jobs import AnalysisRequest, request_analysis, run_analysis, run_to_end
from replays.format import canonical_json, make_footer, make_header
from replays.models import Analysis, Replay
from replays.verify import verify_document
from tournaments.builtins import ensure_builtin
from tournaments.models import Ladder, Match, Seat

STAFF = type("Staff", (), {"is_authenticated": True, "is_staff": True, "pk": None})()
TINY = {"pile": 30, "max_take": 3}


def nim_document(game: Any, meek: int, seed: int = 5) -> dict[str, Any]:
    """Tinynim where seat `meek` always takes one stone and the other takes as many as it may."""
    state = game.new_state(2, seed, TINY)
    actions = []
    while (decision := state.decision()) is not None:
        choice = 0 if decision.seat == meek else len(decision.options) - 1
        actions.append({"seat": decision.seat, "choice": choice, "ms": 1})
        state.choose(choice)
    outcome = state.outcome()
    assert outcome is not None
    header = make_header("tinynim", game.rules_version, game.validate_options(TINY), seed,
                         {"move_ms": 1000, "bank_ms": 10000}, [{"bot_version": 1}, {"bot_version": 2}])
    document = {"header": header, "actions": actions, "footer": make_footer(outcome.to_dict(), [0, 0], [False, False])}
    document["footer"]["digest"] = verify_document(document)["digest"]
    return document


def finished_match(alice: Any, game: Any, meek: int) -> Match:
    ladder = Ladder.objects.create(name=f"nim {meek}", game="tinynim", players_per_match=2, created_by=alice)
    document = nim_document(game, meek)
    match = Match.objects.create(ladder=ladder, game="tinynim", num_players=2, seed=5, status=Match.Status.FINISHED,
                                 options=game.validate_options(TINY))
    for number in range(2):
        Seat.objects.create(match=match, number=number, bot_version=ensure_builtin("greedy"))
    Replay.from_document(match, document).save()
    return match


def test_the_seat_that_gave_stones_away_is_marked_and_the_greedy_seat_is_not(db: None, alice: Any,
                                                                               tinynim: Any) -> None:
    """Taking one stone where three were there gives points away (the playouts' random takers win some back): every
    such decision is marked (fails if the marks or the playouts do not follow the options)."""
    match = finished_match(alice, tinynim, meek=0)
    meek = request_analysis(match, STAFF, AnalysisRequest(seat=1, games=3))
    bold = request_analysis(match, STAFF, AnalysisRequest(seat=2, games=3))
    once = request_analysis(match, STAFF, AnalysisRequest(seat=1, games=2))
    assert run_to_end(meek.pk) == run_to_end(bold.pk) == run_to_end(once.pk) == "finished"
    once.refresh_from_db()
    assert [entry["mark"] for entry in once.steps] == [None] * len(once.steps)  # 2 games: estimates only
    meek.refresh_from_db()
    bold.refresh_from_db()
    assert meek.total == len(meek.steps) > 3
    assert [entry["mark"] for entry in bold.steps] == [None] * len(bold.steps)
    three = [entry for entry in meek.steps if len(entry["options"]) == 3]
    assert three and all(entry["played"] == 0 and entry["best"] != 0 and entry["mark"] for entry in three)
    assert all(entry["options"][2]["score"] >= entry["options"][0]["score"] for entry in three)
    assert three[0]["options"][2]["events"] == [{"seat": 0, "took": 3}]


def test_an_analysis_cut_into_turns_equals_one_run_in_one_go(db: None, alice: Any, tinynim: Any) -> None:
    match = finished_match(alice, tinynim, meek=1)
    row = request_analysis(match, STAFF, AnalysisRequest(seat=2, games=3))
    turns = []
    while (outcome := run_analysis(row.pk, budget=0)) == "paused":
        turns.append(Analysis.objects.get(pk=row.pk).status)
    assert outcome == "finished" and len(turns) == row.total - 1 and set(turns) == {Analysis.Status.QUEUED}
    row.refresh_from_db()
    plan = analysis.Plan(Replay.objects.get(match=match).document(), 1, "greedy", 3, row.seed)
    assert canonical_json(row.steps) == canonical_json(list(analysis.analyse(plan)))


def test_a_second_request_is_answered_from_the_cache_and_a_held_analysis_is_not_run_twice(
        db: None, alice: Any, tinynim: Any) -> None:
    match = finished_match(alice, tinynim, meek=0)
    first = request_analysis(match, STAFF, AnalysisRequest(seat=1, games=2))
    assert run_to_end(first.pk) == "finished"
    again = request_analysis(match, STAFF, AnalysisRequest(seat=1, games=2))
    assert again.pk == first.pk and again.status == Analysis.Status.FINISHED
    assert run_analysis(first.pk) == "not claimed"  # a duplicate message finds it done
    other = request_analysis(match, STAFF, AnalysisRequest(seat=1, games=3))
    assert other.pk != first.pk
    held = Analysis.objects.filter(pk=other.pk)
    held.update(status=Analysis.Status.RUNNING, lease_until=timezone.now() + timedelta(minutes=1))
    assert run_analysis(other.pk) == "not claimed"  # another worker holds it
    assert request_analysis(match, STAFF, AnalysisRequest(seat=1, games=3)).status == Analysis.Status.RUNNING
    held.update(lease_until=timezone.now() - timedelta(seconds=1))  # that worker stopped renewing
    assert request_analysis(match, STAFF, AnalysisRequest(seat=1, games=3)).status == Analysis.Status.QUEUED
    assert run_to_end(other.pk) == "finished"


@pytest.mark.parametrize("game_name", ["evolution", pytest.param("marine", marks=pytest.mark.slow)])
def test_the_same_request_gives_the_same_bytes(game_name: str) -> None:
    """Both real games (they re-deal their hidden future per playout): two runs agree byte for byte, and the G
    futures differ (the playouts of one option do not all end alike in every decision)."""
    path = f"tests/replays/data/branch_parent_{game_name}.json"
    with open(path) as handle:
        document = json.load(handle)
    plan = analysis.Plan(document, 0, "greedy", 2, 77)
    runs = [list(_first(analysis.analyse(plan), 1)) for _ in range(2)]
    assert canonical_json(runs[0]) == canonical_json(runs[1])
    spreads = [len(set(row["scores"])) for entry in runs[0] for row in entry["options"] if row["games"] == 2]
    assert max(spreads) > 1


def _first(results: Any, count: int) -> Any:
    for index, result in enumerate(results):
        if index == count:
            return
        yield result


@pytest.mark.parametrize(("wins", "score", "expected"), [
    ((0.05, 0.0), (1.0, 0.0), None),  # below every threshold
    ((0.10, 0.0), (0.0, 0.0), "inaccuracy"),
    ((0.25, 0.0), (0.0, 0.0), "mistake"),
    ((0.30, 0.0), (0.0, 0.0), "blunder"),
    ((0.0, 0.0), (11.0, 0.0), "mistake"),  # 11 of 100 points: 11 %
    ((0.0, 0.0), (25.0, 0.0), "blunder"),
    ((0.5, 0.3), (25.0, 13.0), None),  # within two standard errors: noise, not a mark
])
def test_marks_follow_the_documented_thresholds(wins: tuple[float, float], score: tuple[float, float],
                                               expected: str | None) -> None:
    losses = {"wins": {"loss": wins[0], "se": wins[1], "of": 0.5},
              "score": {"loss": score[0], "se": score[1], "of": 100.0}}
    assert analysis.mark(losses, 2.0) == expected  # two standard errors: the rule with one rival and many games


def test_the_noise_a_loss_must_pass_grows_with_few_games_and_many_options() -> None:
    """Student's t on G - 1 degrees of freedom, its one-sided level shared among the played option's rivals."""
    assert analysis.noise_factor(1000, 2) == pytest.approx(2.0, abs=0.01)  # many games, one rival: two SEs
    assert analysis.noise_factor(8, 2) == pytest.approx(2.427, abs=0.001)  # t(7) at 1 - 0.0228
    assert analysis.noise_factor(8, 5) > analysis.noise_factor(8, 2) < analysis.noise_factor(3, 2)
    assert analysis.noise_factor(3, 16) > 10  # three games can hardly tell one of sixteen options from luck
