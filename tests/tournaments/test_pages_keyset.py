"""The pages whose cost must not grow with history: the match list's "Older" pages (keyset on the id), the home
page's recent matches, a tournament's rounds a page at a time; each page's queries capped and the same at three
times the matches."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tournaments.models import Ladder, Match, Seat, Tournament
from tournaments.pages import round_pages
from tournaments.scheduling import start_tournament

pytestmark = pytest.mark.django_db
PER_PAGE = 25  # tournaments/pages/views.py MATCHES_PER_PAGE


@pytest.fixture
def ladder(alice: Any) -> Ladder:
    return Ladder.objects.create(name="busy", game="tinynim", players_per_match=2, created_by=alice)


def add_matches(ladder: Ladder, versions: list[Any], count: int) -> list[int]:
    """`count` finished matches of the ladder between the first two versions, newest last; their ids."""
    now = timezone.now()
    made = Match.objects.bulk_create([Match(ladder=ladder, game="tinynim", num_players=2, seed=i, status="finished",
                                            finished_at=now, started_at=now) for i in range(count)])
    Seat.objects.bulk_create([Seat(match=m, number=n, bot_version=versions[n], rank=n + 1, score=1 - n)
                              for m in made for n in range(2)])
    return [m.pk for m in made]


def shown(page: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'aria-label="match (\d+):', page)]


def older_link(page: str) -> str | None:
    found = re.search(r'<a href="([^"]*)" rel="next">Older', page)
    return found.group(1).replace("&amp;", "&") if found else None


@pytest.mark.parametrize("query", ["", "?bot=greedy&status=finished"])
def test_the_match_list_shows_each_older_match_once_while_new_ones_land(
        client: Client, ladder: Ladder, builtin_versions: dict[str, Any], query: str) -> None:
    versions = [builtin_versions["greedy"], builtin_versions["random"]]
    existing = add_matches(ladder, versions, 2 * PER_PAGE + 7)
    seen: list[int] = []
    link: str | None = query or "?"
    while link is not None:
        page = client.get(f"/matches/{link}").content.decode()
        seen += shown(page)
        link = older_link(page)
        add_matches(ladder, versions, 4)  # new matches land between two requests
    assert len(seen) == len(set(seen)), "a match shown twice"
    assert seen == sorted(existing, reverse=True), "a match skipped, or out of order"


@pytest.mark.parametrize("before", ["abc", "-1", "0", "²", "1e9", str(2**63)])
def test_a_before_that_is_no_match_id_is_a_400(client: Client, before: str) -> None:
    response = client.get("/matches/", {"before": before})
    assert response.status_code == 400
    assert "before must be a match id" in response.content.decode()


def test_the_match_list_reads_below_the_id_without_count_or_offset(
        client: Client, ladder: Ladder, builtin_versions: dict[str, Any], django_assert_max_num_queries: Any) -> None:
    ids = add_matches(ladder, [builtin_versions["greedy"], builtin_versions["random"]], PER_PAGE + 3)
    with django_assert_max_num_queries(8) as queries:
        page = client.get("/matches/", {"before": ids[-1]}).content.decode()
    assert shown(page) == sorted(ids[:-1], reverse=True)[:PER_PAGE]
    assert not any("COUNT(" in q["sql"] or "OFFSET" in q["sql"] for q in queries.captured_queries)


def page_queries(client: Client, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


# Each page's queries at most (anonymous reader): a change that adds one fails here, and one whose queries grow
# with the matches fails below.
MOST = {"/": 8, "/matches/": 7, "/matches/?bot=greedy": 7, "/ladders/{ladder}/": 10, "/bots/{bot}/": 9}


def test_the_pages_make_the_same_queries_at_three_times_the_matches(
        client: Client, ladder: Ladder, builtin_versions: dict[str, Any]) -> None:
    versions = [builtin_versions["greedy"], builtin_versions["random"]]
    urls = {path: path.format(ladder=ladder.pk, bot=versions[0].bot_id) for path in MOST}
    add_matches(ladder, versions, 40)
    before = {path: page_queries(client, url) for path, url in urls.items()}
    add_matches(ladder, versions, 80)
    after = {path: page_queries(client, url) for path, url in urls.items()}
    assert after == before
    assert all(after[path] <= most for path, most in MOST.items()), after


def test_the_home_page_shows_the_newest_finished_matches(client: Client, ladder: Ladder,
                                                         builtin_versions: dict[str, Any]) -> None:
    ids = add_matches(ladder, [builtin_versions["greedy"], builtin_versions["random"]], 15)
    Match.objects.filter(pk=ids[0]).update(finished_at=timezone.now() + timezone.timedelta(minutes=1))
    assert shown(client.get("/").content.decode()) == [ids[0], *sorted(ids[1:], reverse=True)[:9]]


# --- a tournament's rounds, a page at a time ---------------------------------------------------------------------


@pytest.fixture
def cup(tinynim: Any, make_tournament: Any, monkeypatch: pytest.MonkeyPatch) -> Tournament:
    """Four entrants in a round robin of three rounds, two tables a round, three games a set (six games a round),
    pages of six games: one round a page."""
    monkeypatch.setattr(round_pages, "GAMES_PER_PAGE", 6)
    tournament = make_tournament(games_per_set=3, name="long cup")
    start_tournament(tournament, enqueue=False)
    return tournament


def rounds_shown(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<section class="round" aria-labelledby="round-\d+" data-round="(\d+)"', page)]


def test_a_tournament_page_shows_one_page_of_rounds_and_links_to_the_others(client: Client, cup: Tournament) -> None:
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert rounds_shown(page) == [1] and page.count('class="game"') == 6
    assert '<a href="?round=2#rounds-h">Later rounds →</a>' in page and "Round 1 of 3" in page
    assert "<details class=\"all-rounds\"><summary>All 18 games, round by round</summary>" in page
    last = client.get(f"/tournaments/{cup.pk}/", {"round": 3}).content.decode()
    assert rounds_shown(last) == [3] and '<a href="?round=2#rounds-h">← Earlier rounds</a>' in last
    assert '<details class="all-rounds" open>' in last  # a round asked for opens out of the folded rounds


def test_every_cross_table_link_leads_to_its_table(client: Client, cup: Tournament) -> None:
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    links = set(re.findall(r'<td class="num"><a href="([^"]*#table-\d+-\d+)" class="muted">', page))
    assert len(links) == 6  # six sets, not played yet, each linked from its two cells
    assert {link.partition("#")[0] for link in links} == {"", "?round=2", "?round=3"}
    for link in links:
        query, _, anchor = link.partition("#")
        target = page if not query else client.get(f"/tournaments/{cup.pk}/{query}").content.decode()
        assert f'<li class="table" id="{anchor}">' in target, link


@pytest.mark.parametrize(("value", "status"), [("abc", 400), ("²", 400), ("-1", 400), ("9", 404), ("0", 404)])
def test_a_round_that_is_not_there_is_a_400_or_404(client: Client, cup: Tournament, value: str, status: int) -> None:
    assert client.get(f"/tournaments/{cup.pk}/", {"round": value}).status_code == status


def test_a_tournament_page_makes_the_same_queries_whatever_its_games(
        client: Client, tinynim: Any, make_tournament: Any) -> None:
    counts = []
    for games in (1, 8):
        tournament = make_tournament(games_per_set=games, name=f"cup of {games}")
        start_tournament(tournament, enqueue=False)
        counts.append(page_queries(client, f"/tournaments/{tournament.pk}/"))
    assert counts[0] == counts[1] <= 24, counts


def test_a_bots_rating_chart_draws_its_last_rated_games(client: Client, ladder: Ladder,
                                                        builtin_versions: dict[str, Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tournaments.pages import queries

    monkeypatch.setattr(queries, "RATING_POINTS", 5)
    greedy = builtin_versions["greedy"]
    ids = add_matches(ladder, [greedy, builtin_versions["random"]], 12)
    for seq, pk in enumerate(ids, start=1):  # rated in order, greedy's rating rising by one a game
        Match.objects.filter(pk=pk).update(rating_seq=seq)
        Seat.objects.filter(match_id=pk, number=0).update(rating_mu_before=seq, rating_sigma_before=0,
                                                          rating_mu_after=seq + 1, rating_sigma_after=0)
    page = client.get(f"/bots/{greedy.bot_id}/").content.decode()
    assert "over the last 5 at most" in page
    points = re.findall(r'<polyline[^>]* points="([^"]*)"', page)
    assert len(points) == 1 and len(points[0].split()) == 6  # the rating before the 8th game, then after 8 to 12
    assert "busy (v1): 13.0 after 5 game(s)" in page
