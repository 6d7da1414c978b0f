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


def undone(match_id: int, cause: str = "replay verification failed: a test") -> bool:
    """revert_result, checked to undo the match rather than rebuild the competition from its whole history."""
    import tournaments.ratings
    import tournaments.services

    def whole_history(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the revert went through the whole history")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tournaments.services, "rebuild_standings", whole_history)
        patch.setattr(tournaments.ratings, "recompute_ratings", whole_history)
        return revert_result(match_id, cause, flag=flagged)


def versions(count: int) -> list[Any]:
    return [ensure_builtin(f"{'greedy' if i % 2 else 'random'}-{i}", "greedy" if i % 2 else "random")
            for i in range(count)]


def assert_as_history_gives(competition: Ladder | Tournament, command: bool = True) -> None:
    """Ratings, standings rows and every seat's rating before and after as a replay of the finished history; with
    command, `recompute_ratings --check` too (every competition's)."""
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
    if command:
        call_command("recompute_ratings", "--check", stdout=io.StringIO())


def _q(where: dict[str, int]) -> Any:
    from django.db.models import Q

    return Q(**where)


@pytest.fixture
def ladder_history() -> tuple[Ladder, list[int], Any]:
    """A ladder of 24 played matches of 2 to 4 seats among six versions, and one more version that plays only the
    13th match."""
    ladder = Ladder.objects.create(name="revert", game="tinynim", players_per_match=2)
    field, loner = versions(6), ensure_builtin("random-loner", "random")
    rng = random.Random(5)
    played = []
    for number in range(24):
        seats = rng.sample(field, rng.randint(2, 4))
        if number == 12:
            seats[-1] = loner
        match = create_match(ladder, seats, seed=number)
        assert run_match(match.pk) == "finished"
        played.append(match.pk)
    assert_as_history_gives(ladder)
    return ladder, played, loner


@pytest.mark.parametrize("position", [0, 12, 22, 23])
def test_a_reverted_ladder_result_leaves_the_ladder_as_its_history_without_it(
        ladder_history: tuple[Ladder, list[int], Any], position: int) -> None:
    ladder, played, loner = ladder_history
    assert undone(played[position])
    assert Match.objects.get(pk=played[position]).status == "failed"
    assert not Seat.objects.filter(match_id=played[position], rating_mu_before__isnull=False).exists()
    assert_as_history_gives(ladder)
    if position == 12:  # its one game gone: no standings row, the prior rating, no games
        assert not StandingsRow.objects.filter(ladder=ladder, bot_version=loner).exists()
        rating = Rating.objects.get(ladder=ladder, bot_version=loner)
        assert (rating.mu, rating.sigma, rating.games, rating.wins, rating.seat_record) == PRIOR
    ladder.refresh_from_db()
    assert ladder.standings_matches == 23


def test_two_reverts_in_turn_and_a_replayed_match(ladder_history: tuple[Ladder, list[int], Any]) -> None:
    ladder, played, _ = ladder_history
    assert undone(played[18], "one")
    assert undone(played[6], "two")
    assert not undone(played[6], "again")  # reverted already: nothing more
    assert_as_history_gives(ladder)
    assert requeue_match(Match.objects.get(pk=played[6]))
    assert run_match(played[6]) == "finished"  # played again: rated after every other
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
        assert undone(match_id)
        assert_as_history_gives(Tournament.objects.get(pk=tournament.pk))


@pytest.mark.parametrize("seed", [1, 2])
def test_reverts_in_any_order_agree_with_the_history_left(seed: int) -> None:
    """Results recorded as record_result records them (the lock, count_result, rate_seats) with ties, forfeits,
    scores, rounds, unrated matches, and unrated ones that seat a version twice (their standings are rebuilt: a row
    counts such a match twice); then 15 of 40 reverted in a random order, each checked."""
    from django.db import transaction

    from tournaments.ratings import rate_seats, send_competition_lock, update_rows
    from tournaments.services import SEAT_RESULT_FIELDS
    from tournaments.standings import count_result

    rng = random.Random(seed)
    field = [ensure_builtin(f"random-{i}", "random") for i in range(6)]
    tournament = create_tournament(field, name="cup", game="tinynim", players_per_table=2, games_per_set=1, seed=3,
                                   format="swiss", rounds=9)
    played = []
    for number in range(40):
        size, twice = rng.randint(2, 4), rng.random() < 0.1
        seats = rng.sample(field, size)
        if twice:
            seats[-1] = seats[0]
        match = create_match(tournament, seats, seed=number, rated=not twice and rng.random() < 0.8,
                             round=rng.randint(1, 5))
        with transaction.atomic():
            seq = send_competition_lock(match, finishing=True)()
            Match.objects.filter(pk=match.pk).update(status="finished", rating_seq=seq)
            match.status, match.rating_seq = "finished", seq
            table = list(match.seats.order_by("number"))
            for seat in table:
                seat.rank, seat.score, seat.forfeited = rng.randint(1, size), rng.randint(0, 9), rng.random() < 0.1
            count_result(match, table)
            if match.rated:
                rate_seats(match, table, seq)
            update_rows(Seat, table, SEAT_RESULT_FIELDS)
        played.append(match.pk)
    assert_as_history_gives(tournament)
    rng.shuffle(played)
    for match_id in played[:15]:
        assert revert_result(match_id, "a test", flag=flagged)
        assert_as_history_gives(Tournament.objects.get(pk=tournament.pk), command=False)
    call_command("recompute_ratings", "--check", stdout=io.StringIO())
