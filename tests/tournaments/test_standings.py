"""Standings (tournaments/standings.py): points, byes, seats, head-to-head, provisional ratings, order and ties."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tournaments.builtins import ensure_builtin
from tournaments.models import Rating, Tournament
from tournaments.scheduling import create_tournament, start_tournament
from tournaments.standings import competition_standings, seat_win_rates, standings_data, tournament_scores
from workers.runner import run_match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_here")]


def played(count: int = 4, players: int = 2, **fields: Any) -> Tournament:
    versions = [ensure_builtin(f"s-{i}", "greedy" if i % 2 else "random") for i in range(count)]
    values = {"name": "league", "game": "tinynim", "players_per_table": players, "games_per_set": players, "seed": 9}
    values.update(fields)
    tournament = create_tournament(versions, **values)
    start_tournament(tournament, enqueue=False)
    while (match := tournament.matches.filter(status="queued").first()) is not None:
        assert run_match(match.pk) == "finished"
    tournament.refresh_from_db()
    return tournament


@pytest.mark.parametrize("players", [2, 3, 4])
def test_points_add_up_to_a_win_per_pair_of_seats_per_game(tinynim: Any, players: int) -> None:
    tournament = played(count=players + 1, players=players)
    rows = competition_standings(tournament)
    games = tournament.matches.count()
    assert sum(s.points for s in rows) == games * players * (players - 1) / 2
    assert sum(s.games for s in rows) == games * players
    for s in rows:
        assert sum(r.games for r in s.seats.values()) == s.games
        assert sum(r.wins for r in s.seats.values()) == s.wins
    rates = seat_win_rates(tournament)
    assert sorted(rates) == list(range(players)) and all(g == games for _, g in rates.values())


def test_head_to_head_is_symmetric(tinynim: Any) -> None:
    rows = {s.version_id: s for s in competition_standings(played())}
    for a in rows.values():
        for opponent, (ahead, level, behind) in a.head_to_head.items():
            assert rows[opponent].head_to_head[a.version_id] == [behind, level, ahead]


def test_a_bye_counts_as_a_won_set(tinynim: Any) -> None:
    tournament = played(count=3, format="swiss", rounds=1)
    [bye] = [s for s in competition_standings(tournament) if s.byes]
    assert bye.games == 0 and bye.points == 1 * 2 and bye.rounds == {1: 2.0}


def test_ties_on_points_go_to_the_rating_then_the_name(tinynim: Any) -> None:
    tournament = played()
    Rating.objects.filter(tournament=tournament).update(mu=25.0, sigma=1.0)
    rows = competition_standings(tournament)
    for better, worse in zip(rows, rows[1:], strict=False):
        assert (better.points, worse.name) >= (worse.points, better.name)


def test_bots_are_provisional_until_sigma_falls_below_the_setting(tinynim: Any, settings: Any) -> None:
    tournament = played()
    assert all(row["provisional"] for row in standings_data(tournament)["rows"])
    settings.LUDUS_PROVISIONAL_SIGMA = 9.0
    assert not any(row["provisional"] for row in standings_data(tournament)["rows"])


def test_the_elimination_champion_comes_first(tinynim: Any) -> None:
    tournament = played(count=4, format="single_elimination")
    rows = competition_standings(tournament)
    assert rows[0].eliminated_round is None and rows[1].eliminated_round == 2
    assert {rows[2].eliminated_round, rows[3].eliminated_round} == {1}


def test_the_data_is_plain_json(tinynim: Any) -> None:
    tournament = played()
    data = json.loads(json.dumps(standings_data(tournament)))
    assert data["kind"] == "tournament" and data["state"] == "finished"
    assert sum(r["games"] for r in data["game_seat_win_rates"].values()) == 2 * tournament.matches.count()
    [record] = tournament_scores(tournament.entry_set.first().bot_version_id)  # type: ignore[union-attr]
    assert record["tournament"] == tournament.pk and record["of"] == 4 and 1 <= record["place"] <= 4
    row = data["rows"][0]
    assert row["place"] == 1 and {"points", "games", "conservative", "provisional", "seats", "head_to_head",
                                  "rounds"} <= set(row)


def test_the_standings_command_prints_a_table_or_json(tinynim: Any) -> None:
    tournament = played()
    out = io.StringIO()
    call_command("standings", "--tournament", str(tournament.pk), stdout=out)
    assert "league: tinynim, round robin, finished" in out.getvalue() and "wins by seat" in out.getvalue()
    out = io.StringIO()
    call_command("standings", "--tournament", str(tournament.pk), "--json", stdout=out)
    assert len(json.loads(out.getvalue())["rows"]) == 4
    with pytest.raises(CommandError, match="no ladder with id 424242"):
        call_command("standings", "--ladder", "424242")
