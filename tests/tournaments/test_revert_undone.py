"""A reverted result is undone, not rebuilt from history (tournaments/services.py revert_result): its versions'
ratings go back to what they were before it, every match rated after it that they played is rated again, and its
seats leave the standings rows. The competition must then stand exactly as its history without the match gives it:
`recompute_ratings --check` agrees, and so does every later seat's rating before and after.

Matches are real tinynim games played in this process by the runner (workers.runner.run_match), on PostgreSQL.
"""

from __future__ import annotations

import io
import math
import random
from typing import Any

import pytest
from django.core.management import call_command

from replays.models import Replay
from tournaments.builtins import ensure_builtin
from tournaments.models import Ladder, Match, Rating, Seat, StandingsRow, Tournament
from tournaments.new_matches import create_match
from tournaments.ratings import MODEL, PRIOR, rating_differences
from tournaments.scheduling import create_tournament, start_tournament
from tournaments.services import requeue_match, revert_result
from tournaments.standings import standings_differences
from workers.runner import run_match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tinynim", "verify_here")]


def flagged(match_id: int) -> None:
    """revert_result's flag, as replays/verification.py marks the replay."""
    Replay.objects.filter(match_id=match_id).update(verification="mismatch", verify_error="a test")


def versions(count: int) -> list[Any]:
    return [ensure_builtin(f"{'greedy' if i % 2 else 'random'}-{i}", "greedy" if i % 2 else "random")
            for i in range(count)]


def assert_as_history_gives(competition: Ladder | Tournament) -> None:
    """Ratings, standings rows and every seat's rating before and after as a replay of the finished history."""
    where = {"ladder_id": competition.pk} if isinstance(competition, Ladder) else {"tournament_id": competition.pk}
    assert rating_differences(_q(where), _q(where)) == []
    assert standings_differences(competition) == []
    ratings: dict[int, tuple[float, float]] = {}
    for match in Match.objects.filter(**where, status="finished", rated=True).order_by("rating_seq", "pk"):
        seats = list(match.seats.order_by("number"))
        before = [ratings.get(seat.bot_version_id, PRIOR[:2]) for seat in seats]
        after = MODEL.rate([[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before],
                           ranks=[float(seat.rank or 0) for seat in seats])
        for seat, (mu, sigma), [new] in zip(seats, before, after, strict=True):
            got = (seat.rating_mu_before, seat.rating_sigma_before, seat.rating_mu_after, seat.rating_sigma_after)
            assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in
                       zip(got, (mu, sigma, new.mu, new.sigma), strict=True)), (match.pk, seat.number)
            ratings[seat.bot_version_id] = (new.mu, new.sigma)
    call_command("recompute_ratings", "--check", stdout=io.StringIO())


def _q(where: dict[str, int]) -> Any:
    from django.db.models import Q

    return Q(**where)


@pytest.fixture
def ladder_history() -> tuple[Ladder, list[int], Any]:
    """A ladder of 40 played matches of 2 to 4 seats among six versions, and one more version that plays only the
    21st match."""
    ladder = Ladder.objects.create(name="revert", game="tinynim", players_per_match=2)
    field, loner = versions(6), ensure_builtin("random-loner", "random")
    rng = random.Random(5)
    played = []
    for number in range(40):
        seats = rng.sample(field, rng.randint(2, 4))
        if number == 20:
            seats[-1] = loner
        match = create_match(ladder, seats, seed=number)
        assert run_match(match.pk) == "finished"
        played.append(match.pk)
    assert_as_history_gives(ladder)
    return ladder, played, loner


@pytest.mark.parametrize("position", [0, 20, 38, 39])
def test_a_reverted_ladder_result_leaves_the_ladder_as_its_history_without_it(
        ladder_history: tuple[Ladder, list[int], Any], position: int) -> None:
    ladder, played, loner = ladder_history
    assert revert_result(played[position], "replay verification failed: a test", flag=flagged)
    assert Match.objects.get(pk=played[position]).status == "failed"
    assert not Seat.objects.filter(match_id=played[position], rating_mu_before__isnull=False).exists()
    assert_as_history_gives(ladder)
    if position == 20:  # its one game gone: no standings row, the prior rating, no games
        assert not StandingsRow.objects.filter(ladder=ladder, bot_version=loner).exists()
        rating = Rating.objects.get(ladder=ladder, bot_version=loner)
        assert (rating.mu, rating.sigma, rating.games, rating.wins, rating.seat_record) == PRIOR
    ladder.refresh_from_db()
    assert ladder.standings_matches == 39


def test_two_reverts_in_turn_and_a_replayed_match(ladder_history: tuple[Ladder, list[int], Any]) -> None:
    ladder, played, _ = ladder_history
    assert revert_result(played[30], "one", flag=flagged)
    assert revert_result(played[10], "two", flag=flagged)
    assert not revert_result(played[10], "again", flag=flagged)  # reverted already: nothing more
    assert_as_history_gives(ladder)
    assert requeue_match(Match.objects.get(pk=played[10]))
    assert run_match(played[10]) == "finished"  # played again: rated after every other
    assert_as_history_gives(ladder)


@pytest.mark.parametrize("games_per_set", [1, 2])
def test_a_reverted_tournament_game_leaves_its_round_as_the_rest_of_it_gives(games_per_set: int) -> None:
    """A round's points stay in a version's row while it has another game of that round, with 0 points perhaps."""
    tournament = create_tournament(versions(4), name="cup", game="tinynim", players_per_table=2,
                                   games_per_set=games_per_set, seed=3)
    start_tournament(tournament, enqueue=False)
    played = list(tournament.matches.order_by("pk").values_list("pk", flat=True))
    for match_id in played[:-1]:  # the last left queued: the tournament stays running
        assert run_match(match_id) == "finished"
    for match_id in (played[0], played[len(played) // 2]):
        assert revert_result(match_id, "replay verification failed: a test", flag=flagged)
        assert_as_history_gives(Tournament.objects.get(pk=tournament.pk))
