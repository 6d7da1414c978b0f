"""The tournament page's cross-table (round robin) and bracket set scores (single elimination), from real played
tournaments of the toy game."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tournaments.models import Match, Tournament
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def play_out(tournament: Tournament) -> None:
    start_tournament(tournament, enqueue=False)
    while (match := Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("pk").first()):
        assert run_match(match.pk) == "finished"


def cells(page: str) -> list[list[str]]:
    """The cross-table's body as shown, row by row (row header first)."""
    table = page.partition('<table class="cross">')[2].partition("</table>")[0]
    table = re.sub(r'<span class="sr-only">.*?</span>', "", table)  # what a screen reader hears besides
    rows = re.findall(r"<tr>(.*?)</tr>", table.partition("<tbody>")[2], re.DOTALL)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.DOTALL)]
            for row in rows]


def test_a_round_robin_is_a_cross_table_of_set_scores_linked_to_the_sets(client: Client, tinynim: Any,
                                                                         make_tournament: Any) -> None:
    cup = make_tournament(entrants=("greedy", "random", "greedy-2"), games_per_set=2, name="rr")
    play_out(cup)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    grid = cells(page)
    assert len(grid) == 3 and all(len(row) == 4 for row in grid)
    for i, row in enumerate(grid):
        assert row[1 + i] == "—"  # itself
        for j in range(3):
            if j != i:  # a set of two games: A's ahead–behind is B's behind–ahead
                ahead, behind = map(int, row[1 + j].split()[0].split("–"))
                them = list(map(int, grid[j][1 + i].split()[0].split("–")))
                assert ahead + behind <= 2 and them == [behind, ahead]
    anchors = set(re.findall(r'<td class="num [a-z]+"><a href="#(table-\d+-\d+)"', page))
    assert len(anchors) == 3  # three sets, each linked from its two cells
    for anchor in anchors:
        assert f'<li class="table" id="{anchor}">' in page
    assert "<details class=\"all-rounds\"><summary>All 6 games, round by round</summary>" in page


def test_an_elimination_table_shows_each_entrants_set_score_winner_first(client: Client, tinynim: Any,
                                                                       make_tournament: Any) -> None:
    cup = make_tournament(entrants=("greedy", "random", "greedy-2", "random-2"), format="single_elimination",
                          games_per_set=3, name="ko")
    play_out(cup)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert "cross" not in page.partition("<main")[2].partition("Bracket")[0]  # no cross-table for a knockout
    sets = re.findall(r'<ol class="set"[^>]*>(.*?)</ol>', page, re.DOTALL)
    assert len(sets) == 3  # two semi-finals and the final
    for entrants in sets:
        scores = re.findall(r'<li( class="through")?><span class="name">([^<]+)</span> <strong class="wins">(\d)',
                            entrants)
        assert len(scores) == 2 and scores[0][0] and not scores[1][0]  # who goes on comes first
        assert int(scores[0][2]) >= int(scores[1][2]) and int(scores[0][2]) + int(scores[1][2]) <= 3
