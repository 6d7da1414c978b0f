"""The tournament page's cross-table (round robin) and bracket set scores (single elimination), from real played
tournaments of the toy game; the order a bracket's rounds are drawn in (bracket_order), so the sets feeding one set of
the next round sit together, in that round's order, and the lines between rounds never cross."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tournaments.models import Match, Tournament
from tournaments.pages.brackets import bracket_order
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_here")]


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
    froms = re.findall(r'<li class="table" id="(table-\d-\d)"(?: data-from="([^"]*)")?>', page)
    assert sorted(froms) == [("table-1-1", ""), ("table-1-2", ""), ("table-2-1", "table-1-1 table-1-2")]  # the lines


def test_it_keeps_the_last_round_as_dealt_and_groups_the_round_before_by_where_its_entrants_go() -> None:
    # Eight seeds, tables of two, dealt in a snake: 1-8, 2-7, 3-6, 4-5; the favourites win, dealt again: 1-4, 2-3.
    first = [(1, 8), (2, 7), (3, 6), (4, 5)]
    second = [(1, 4), (2, 3)]
    assert bracket_order([first, second, [(1, 2)]]) == [[0, 3, 1, 2], [0, 1], [0]]


def test_a_bye_sits_beside_the_set_it_meets_in_the_next_round() -> None:
    first = [(1,), (2, 5), (3, 4)]  # seed 1 sits out
    second = [(1, 3), (2,)]  # 3 beat 4, then 2 sits out
    assert bracket_order([first, second, [(1, 2)]]) == [[0, 2, 1], [0, 1], [0]]


def test_sets_of_a_round_still_being_played_keep_their_order() -> None:
    assert bracket_order([[(1, 4), (2, 3)]]) == [[0, 1]]
    assert bracket_order([[(1, 6), (2, 5), (3, 4)], [(2, 6)]]) == [[0, 1, 2], [0]]  # table 3 goes on to no set yet
