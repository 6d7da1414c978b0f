"""The standings rows (tournaments.models.StandingsRow) kept by every result agree with a full recount of the
finished seats: after random results with ties and forfeits, rated and unrated, in tournaments and ladders, after
a ladder's ratings are rebuilt, and after a match finished some other way
(docs/architecture.md#tournaments-ladders-and-ratings)."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournaments.models import Ladder, LadderEntry, Match, Rating, StandingsRow, Tournament
from tournaments.new_matches import create_match
from tournaments.ratings import rebuild_ratings
from tournaments.scheduling import create_tournament
from tournaments.services import claim_match, record_result
from tournaments.standings import competition_standings, recounted_standings, standings_differences

pytestmark = pytest.mark.django_db


def no_replay(match: Match, document: dict[str, Any]) -> None:
    """record_result's replay writer: these results have no replay to store (the rows are what is tested)."""


def random_result(match: Match, rng: random.Random, owner: str = "runner") -> None:
    """A result with random ranks (ties allowed), scores and forfeits, recorded as the runner records one."""
    players = match.num_players
    forfeited = [rng.random() < 0.2 for _ in range(players)]
    scores = [0 if gone else rng.randint(-3, 20) for gone in forfeited]
    # ranks as the engine gives them: by score, forfeits last, equal scores tied
    order = sorted({(not gone, score) for gone, score in zip(forfeited, scores, strict=True)}, reverse=True)
    ranks = [1 + sum(1 for other in order if other > (not gone, score))
             for gone, score in zip(forfeited, scores, strict=True)]
    document = {"footer": {"outcome": {"scores": scores, "ranks": ranks}, "faults": [int(f) for f in forfeited],
                           "forfeited": forfeited}}
    assert claim_match(match.pk, owner)
    record_result(match.pk, owner, document, store=no_replay)


def lines(competition: Tournament | Ladder) -> list[dict[str, Any]]:
    return [standing.to_dict() for standing in competition_standings(competition)]


def recounted(competition: Tournament | Ladder) -> list[dict[str, Any]]:
    return [standing.to_dict() for standing in recounted_standings(competition)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_tournaments_rows_agree_with_a_recount_after_random_results(
    tinynim: Any, builtin_versions: dict[str, Any], players: int
) -> None:
    rng = random.Random(players)
    versions = list(builtin_versions.values())[:players + 2]
    tournament = create_tournament(versions, name=f"random {players}", game="tinynim", players_per_table=players,
                                   games_per_set=1, seed=3)
    Tournament.objects.filter(pk=tournament.pk).update(state=Tournament.State.RUNNING)
    for game in range(12):
        table = rng.sample(versions, players)
        match = create_match(tournament, table, game, rated=rng.random() < 0.7, round=1 + game // 4)
        random_result(match, rng)
    assert StandingsRow.objects.filter(tournament=tournament).count() == len(versions)
    assert standings_differences(tournament) == []
    assert lines(tournament) == recounted(tournament)
    assert sum(line["games"] for line in lines(tournament)) == 12 * players


def test_a_ladders_rows_agree_after_random_results_and_a_rebuild_of_its_ratings(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    rng = random.Random(7)
    versions = list(builtin_versions.values())[:5]
    ladder = Ladder.objects.create(name="random", game="tinynim", players_per_match=3)
    LadderEntry.objects.bulk_create([LadderEntry(ladder=ladder, bot_version=v) for v in versions])
    for seed in range(15):
        random_result(create_match(ladder, rng.sample(versions, 3), seed, rated=rng.random() < 0.8), rng)
    assert standings_differences(ladder) == [] and lines(ladder) == recounted(ladder)
    Rating.objects.filter(ladder=ladder).update(mu=40.0)
    assert rebuild_ratings(Ladder, ladder.pk)  # the ratings were wrong and are rebuilt; the rows stay right
    assert standings_differences(ladder) == [] and lines(ladder) == recounted(ladder)
    random_result(create_match(ladder, versions[:3], 99), rng)
    assert standings_differences(ladder) == [] and lines(ladder) == recounted(ladder)


def test_a_match_finished_without_record_result_is_counted_from_the_seats_until_the_rows_are_rebuilt(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    rng = random.Random(1)
    versions = list(builtin_versions.values())[:3]
    ladder = Ladder.objects.create(name="moved", game="tinynim", players_per_match=2)
    LadderEntry.objects.bulk_create([LadderEntry(ladder=ladder, bot_version=v) for v in versions])
    random_result(create_match(ladder, versions[:2], 1), rng)
    other = create_match(ladder, versions[1:], 2)
    Match.objects.filter(pk=other.pk).update(status=Match.Status.FINISHED)
    other.seats.filter(number=0).update(rank=1, score=5)
    other.seats.filter(number=1).update(rank=2, score=1)
    assert sum(line["games"] for line in lines(ladder)) == 4  # recounted from the seats until rebuilt
    assert lines(ladder) == recounted(ladder)
    assert standings_differences(ladder)[-1] == "standings count 1 finished matches of 2"
    call_command("recompute_ratings", "--ladder", str(ladder.pk), stdout=io.StringIO())
    assert standings_differences(ladder) == [] and lines(ladder) == recounted(ladder)


def test_the_check_command_names_a_wrong_row_and_the_rebuild_mends_it(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    rng = random.Random(2)
    versions = list(builtin_versions.values())[:3]
    ladder = Ladder.objects.create(name="checked", game="tinynim", players_per_match=2)
    for seed in range(4):
        random_result(create_match(ladder, rng.sample(versions, 2), seed), rng)
    call_command("recompute_ratings", "--check", "--ladder", str(ladder.pk), stdout=io.StringIO())
    wrong = StandingsRow.objects.filter(ladder=ladder).order_by("pk").first()
    assert wrong is not None
    StandingsRow.objects.filter(pk=wrong.pk).update(points=wrong.points + 1)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--check", "--ladder", str(ladder.pk), stdout=out)
    assert f"standings of {wrong.bot_version.label}" in out.getvalue()
    call_command("recompute_ratings", "--ladder", str(ladder.pk), stdout=io.StringIO())
    assert standings_differences(ladder) == []
    call_command("recompute_ratings", "--check", "--ladder", str(ladder.pk), stdout=io.StringIO())


def test_a_table_is_read_in_statements_that_do_not_grow_with_its_games(
    tinynim: Any, builtin_versions: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    rng = random.Random(3)
    versions = list(builtin_versions.values())[:4]
    tournament = create_tournament(versions, name="reads", game="tinynim", players_per_table=2, games_per_set=1,
                                   seed=3)
    for seed in range(3):
        random_result(create_match(tournament, rng.sample(versions, 2), seed, round=1), rng)
    lines(tournament)  # fresh
    # the count of finished matches, the rows, the entries, the ratings, the byes
    with django_assert_max_num_queries(5):
        assert len(lines(tournament)) == 4


def test_the_games_seat_rates_from_the_rows_are_those_of_every_finished_seat(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    from tournaments.models import Seat
    from tournaments.standings import game_seat_win_rates, seat_wins

    rng = random.Random(11)
    versions = list(builtin_versions.values())[:4]
    ladders = [Ladder.objects.create(name=f"seats {n}", game="tinynim", players_per_match=n) for n in (2, 3)]
    for seed in range(16):
        ladder = ladders[seed % 2]
        random_result(create_match(ladder, rng.sample(versions, ladder.players_per_match), seed), rng)
    tournament = create_tournament(versions, name="seats cup", game="tinynim", players_per_table=2, seed=3)
    Tournament.objects.filter(pk=tournament.pk).update(state=Tournament.State.RUNNING)
    for game in range(6):
        random_result(create_match(tournament, rng.sample(versions, 2), game, round=1), rng)
    for players in (2, 3):
        finished = Seat.objects.filter(match__game="tinynim", match__num_players=players, match__status="finished")
        assert game_seat_win_rates("tinynim", players) == seat_wins(finished) != {}
