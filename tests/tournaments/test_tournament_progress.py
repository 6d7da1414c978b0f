"""A started tournament runs on its own: rounds follow results, byes, eliminations, withdrawals, the end.

Matches run in this process through the real runner (workers.runner.run_match) on PostgreSQL; the next round is
scheduled by the result-recording path itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Q

from tournaments.advancement import advance_tournament, cancel_tournament, played_tables, withdraw_entry
from tournaments.builtins import ensure_builtin
from tournaments.formats.swiss import met_counts
from tournaments.models import Entry, Match, Seat, Tournament
from tournaments.ratings import rating_differences
from tournaments.scheduling import create_tournament, start_tournament
from workers.runner import run_match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_here")]


def entrants(count: int) -> list[Any]:
    return [ensure_builtin(f"{'greedy' if i % 2 else 'random'}-{i}", "greedy" if i % 2 else "random")
            for i in range(count)]


def make(count: int, game: str = "tinynim", **fields: Any) -> Tournament:
    values = {"name": "cup", "game": game, "players_per_table": 2, "games_per_set": 2, "seed": 3}
    values.update(fields)
    return create_tournament(entrants(count), **values)


def run_queued(tournament: Tournament, before: Callable[[int], None] | None = None) -> int:
    """Run queued matches until none is left (new rounds appear as rounds end); return how many ran."""
    ran = 0
    while (match := tournament.matches.filter(status=Match.Status.QUEUED).order_by("pk").first()) is not None:
        if before is not None:
            before(match.round or 0)
        assert run_match(match.pk) == "finished"
        ran += 1
        assert ran < 500, "the tournament does not end"
    tournament.refresh_from_db()
    return ran


def seated(tournament: Tournament, round_number: int) -> list[int]:
    return sorted({s.bot_version_id for s in Seat.objects.filter(match__tournament=tournament,
                                                                  match__round=round_number)})


def test_round_robin_schedules_everything_at_once_and_finishes(tinynim: Any) -> None:
    tournament = make(4)
    matches = start_tournament(tournament, enqueue=False)
    assert len(matches) == 6 * 2
    assert run_queued(tournament) == 12
    assert tournament.state == "finished" and tournament.finished_at is not None


@pytest.mark.parametrize(("count", "players"), [(5, 2), (4, 2), (7, 3), (9, 4)])
def test_swiss_plays_its_rounds_without_repeats_and_gives_byes_fairly(
    tinynim: Any, count: int, players: int
) -> None:
    tournament = make(count, format="swiss", players_per_table=players, rounds=3, games_per_set=players)
    first = start_tournament(tournament, enqueue=False)
    assert {m.round for m in first} == {1}
    rounds_seen = []
    run_queued(tournament, before=rounds_seen.append)
    assert tournament.state == "finished" and tournament.current_round == 3
    assert sorted(set(rounds_seen)) == [1, 2, 3]
    byes = {e.bot_version_id: e.byes for e in tournament.entry_set.all()}
    assert sum(len(b) for b in byes.values()) == 3 * (count % players)
    assert max(len(b) for b in byes.values()) <= 1 or count % players * 3 > count
    if players == 2 and count <= 5:
        assert max(met_counts(played_tables(tournament)).values()) == 1  # no pair met twice
    for number in (1, 2, 3):
        assert len(seated(tournament, number)) == count - count % players
    assert rating_differences(Q(tournament=tournament), Q(tournament=tournament)) == []


def test_a_swiss_set_rotates_the_seats_with_one_seed(tinynim: Any) -> None:
    tournament = make(4, format="swiss", players_per_table=2, games_per_set=2, rounds=1)
    matches = start_tournament(tournament, enqueue=False)
    by_table: dict[int | None, list[Match]] = {}
    for match in matches:
        by_table.setdefault(match.table, []).append(match)
    for games in by_table.values():
        assert len({m.seed for m in games}) == 1
        orders = [tuple(s.bot_version_id for s in m.seats.order_by("number")) for m in games]
        assert orders[1] == orders[0][1:] + orders[0][:1]


@pytest.mark.parametrize(("count", "players", "best_of"), [(5, 2, 3), (6, 2, 1), (7, 3, 1), (6, 4, 1), (9, 4, 1)])
def test_single_elimination_plays_down_to_one_champion(
    tinynim: Any, count: int, players: int, best_of: int
) -> None:
    tournament = make(count, format="single_elimination", players_per_table=players, best_of=best_of,
                      games_per_set=players)
    start_tournament(tournament, enqueue=False)
    run_queued(tournament)
    assert tournament.state == "finished"
    entries = list(tournament.entry_set.all())
    champions = [e for e in entries if e.eliminated_round is None]
    assert len(champions) == 1
    assert max(e.eliminated_round or 0 for e in entries) == tournament.current_round
    final = tournament.matches.filter(round=tournament.current_round)
    assert champions[0].bot_version_id in {s.bot_version_id for m in final for s in m.seats.all()}
    sets = Counter((m.round, m.table) for m in tournament.matches.all())
    assert set(sets.values()) == {best_of * players}  # whole sets, best_of of them, at every table


def test_elimination_byes_go_to_the_top_seeds(tinynim: Any) -> None:
    tournament = make(5, format="single_elimination", players_per_table=2)
    start_tournament(tournament, enqueue=False)
    first = tournament.entry_set.order_by("pk").first()
    assert first is not None and first.byes == [1]
    assert first.bot_version_id not in seated(tournament, 1)


def test_a_bot_withdrawn_mid_swiss_loses_its_queued_games_and_is_never_paired_again(tinynim: Any) -> None:
    tournament = make(6, format="swiss", players_per_table=2, rounds=3)
    start_tournament(tournament, enqueue=False)
    quitter = tournament.entry_set.order_by("pk").first()
    assert quitter is not None
    queued = tournament.matches.filter(seats__bot_version_id=quitter.bot_version_id, status="queued").count()
    first = tournament.matches.filter(status="queued").exclude(
        seats__bot_version_id=quitter.bot_version_id).order_by("pk").first()
    assert first is not None
    run_match(first.pk)
    assert withdraw_entry(tournament, quitter.bot_version_id) == queued == 2
    with pytest.raises(ValidationError, match="withdrawn from tournament .* already"):
        withdraw_entry(tournament, quitter.bot_version_id)
    run_queued(tournament)
    assert tournament.state == "finished"
    assert quitter.bot_version_id not in seated(tournament, 2) + seated(tournament, 3)
    assert len(seated(tournament, 2)) == 4  # five left: four play, one bye
    cancelled = tournament.matches.filter(status="cancelled")
    assert cancelled.count() == 2 and not cancelled.filter(rating_seq__isnull=False).exists()


def test_a_bot_withdrawn_mid_elimination_never_advances(tinynim: Any) -> None:
    tournament = make(4, format="single_elimination", players_per_table=2)
    start_tournament(tournament, enqueue=False)
    quitter = tournament.entry_set.order_by("pk").first()
    assert quitter is not None
    withdraw_entry(tournament, quitter.bot_version_id)
    run_queued(tournament)
    assert tournament.state == "finished"
    assert quitter.bot_version_id not in seated(tournament, 2)
    assert len(seated(tournament, 2)) == 2


def test_the_last_queued_game_withdrawn_still_moves_the_round_on(tinynim: Any) -> None:
    tournament = make(4, format="swiss", players_per_table=2, rounds=2, games_per_set=1)
    start_tournament(tournament, enqueue=False)
    [keep, drop] = tournament.matches.order_by("pk")
    run_match(keep.pk)
    quitter = drop.seats.first()
    assert quitter is not None
    withdraw_entry(tournament, quitter.bot_version_id)
    tournament.refresh_from_db()
    assert tournament.current_round == 2 and tournament.matches.filter(round=2, status="queued").count() == 1


def test_advancing_twice_schedules_one_round(tinynim: Any) -> None:
    tournament = make(4, format="swiss", players_per_table=2, rounds=2, games_per_set=1)
    start_tournament(tournament, enqueue=False)
    for match in list(tournament.matches.all()):
        run_match(match.pk)
    assert advance_tournament(tournament.pk) == "waiting"  # run_match already advanced it
    assert tournament.matches.filter(round=2).count() == 2


def test_it_refuses_to_start_twice_and_changes_nothing(tinynim: Any) -> None:
    tournament = make(4, format="swiss")
    matches = start_tournament(tournament, enqueue=False)
    with pytest.raises(ValidationError, match="is running, not a draft: it was started already"):
        start_tournament(tournament, enqueue=False)
    assert tournament.matches.count() == len(matches)


def test_cancelling_stops_pending_games_and_keeps_finished_ones(tinynim: Any) -> None:
    tournament = make(4)
    matches = start_tournament(tournament, enqueue=False)
    run_match(matches[0].pk)
    assert cancel_tournament(tournament) == len(matches) - 1
    tournament.refresh_from_db()
    assert tournament.state == "cancelled"
    assert tournament.matches.filter(status="finished").count() == 1
    with pytest.raises(ValidationError, match="is cancelled; it cannot be cancelled"):
        cancel_tournament(tournament)
    assert advance_tournament(tournament.pk) == "idle"


def test_withdrawing_from_a_finished_tournament_is_refused(tinynim: Any) -> None:
    tournament = make(2, games_per_set=1)
    start_tournament(tournament, enqueue=False)
    run_queued(tournament)
    entry = Entry.objects.filter(tournament=tournament).first()
    assert entry is not None
    with pytest.raises(ValidationError, match="is finished; its entries are final"):
        withdraw_entry(tournament, entry.bot_version_id)


def test_withdrawals_that_shrink_an_elimination_round_do_not_make_it_the_final(tinynim: Any) -> None:
    tournament = make(6, format="single_elimination", players_per_table=2)
    start_tournament(tournament, enqueue=False)
    seeds = list(tournament.entry_set.order_by("pk"))
    for entry in seeds[3:]:  # one from each of the three first-round tables (snake: 0-5, 1-4, 2-3)
        withdraw_entry(tournament, entry.bot_version_id)
    tournament.refresh_from_db()
    assert tournament.current_round == 2  # every first-round game was cancelled: the round is over
    run_queued(tournament)
    assert tournament.state == "finished" and tournament.current_round == 3
    assert [e.eliminated_round for e in tournament.entry_set.order_by("pk")][:3].count(None) == 1
