"""The pages without a browser: they render empty, the upload page needs a login, private bots stay private."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tournaments.models import Bot, BotVersion

pytestmark = pytest.mark.django_db


def test_it_renders_every_page_on_an_empty_database(client: Client) -> None:
    for path in ("/", "/matches/", "/accounts/login/"):
        assert client.get(path).status_code == 200, path


def test_the_upload_page_sends_anonymous_users_to_the_login(client: Client) -> None:
    response = client.get("/upload/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_upload_stores_a_version_and_shows_its_page(client: Client, alice: Any,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tournaments.bot_lifecycle.dispatch_validation", lambda version_id: None)
    client.force_login(alice)
    data = {"name": "hungry", "game": "evolution", "description": "eats",
            "file": SimpleUploadedFile("bot.py", b"def act(view, decision):\n    return 0\n")}
    response = client.post("/upload/", data)
    version = BotVersion.objects.get(bot__owner=alice, bot__name="hungry")
    assert response.status_code == 302 and response["Location"] == f"/versions/{version.pk}/"
    assert version.status == BotVersion.Status.PENDING
    assert "pending" in client.get(response["Location"]).content.decode()


def test_a_bad_upload_shows_the_reason_and_stores_nothing(client: Client, alice: Any) -> None:
    client.force_login(alice)
    data = {"name": "hungry", "game": "evolution", "file": SimpleUploadedFile("bot.exe", b"MZ\x90\x00")}
    response = client.post("/upload/", data)
    assert response.status_code == 200 and 'class="error"' in response.content.decode()
    assert not BotVersion.objects.exists()


def test_a_private_bot_is_not_found_for_others(client: Client, alice: Any, bob: Any) -> None:
    bot = Bot.objects.create(owner=alice, name="secret", game="evolution", visibility=Bot.Visibility.PRIVATE)
    assert client.get(f"/bots/{bot.pk}/").status_code == 404
    client.force_login(bob)
    assert client.get(f"/bots/{bot.pk}/").status_code == 404
    client.force_login(alice)
    assert client.get(f"/bots/{bot.pk}/").status_code == 200


def test_bad_filters_are_ignored(client: Client) -> None:
    assert client.get("/matches/?status=nonsense&competition=ladder:x&bot=%00&page=999").status_code == 200


def test_a_ladder_page_ranks_by_rating_in_pages_with_unrated_entrants_at_the_prior(client: Client, alice: Any) -> None:
    from tournaments.models import Ladder, LadderEntry, Rating

    ladder = Ladder.objects.create(name="big", game="marine", players_per_match=2)
    bot = Bot.objects.create(owner=alice, name="many", game="marine")
    versions = BotVersion.objects.bulk_create([BotVersion(bot=bot, number=n, source=b"x", status="active")
                                               for n in range(1, 62)])
    LadderEntry.objects.bulk_create([LadderEntry(ladder=ladder, bot_version=v) for v in versions])
    # Sixty rated versions, the better the higher their number, and one entrant (many@1) not rated yet.
    Rating.objects.bulk_create([Rating(ladder=ladder, bot_version=v, mu=20 + v.number / 10, sigma=2.0, games=3,
                                       wins=1, seat_record=[[2, 1], [1, 0]]) for v in versions[1:]])
    first = client.get(f"/ladders/{ladder.pk}/").content.decode()
    assert first.index("many@61") < first.index("many@60") and "many@1<" not in first
    assert "Places 1–50 of 61" in first and "60 / 120 won" in first  # seat 1: 60 wins in 120 rated games
    last = client.get(f"/ladders/{ladder.pk}/?page=2").content.decode()
    assert "Places 51–61 of 61" in last and "many@1<" in last and last.count("provisional") >= 1


def test_a_bots_rating_chart_keeps_two_competitions_of_one_name_apart(tinynim: Any, make_tournament: Any,
                                                                       builtin_versions: dict[str, Any]) -> None:
    from tournaments.pages.queries import rating_history
    from tournaments.scheduling import start_tournament
    from workers.runner import run_match

    cups = [make_tournament(entrants=("greedy", "random"), name="cup", seed=seed) for seed in (1, 2)]
    for cup in cups:
        for match in start_tournament(cup, enqueue=False):
            assert run_match(match.pk) == "finished"
    series = rating_history([builtin_versions["greedy"].pk])
    assert sorted(s.label for s in series) == sorted(f"cup (v1) [tournament #{cup.pk}]" for cup in cups)  # #9, #10
    assert [s.games for s in series] == [1, 1]


def test_the_api_prefix_is_a_map_of_the_api(client: Client) -> None:
    body = client.get("/api/").json()
    assert body["docs"].endswith("/api/docs/") and body["matches"].endswith("/api/matches/")
    assert client.get("/api/nothing-here/").status_code == 404


def test_the_standings_headers_keep_mu_and_sigma_lowercase(client: Client) -> None:
    from tournaments.models import Ladder

    ladder = Ladder.objects.create(name="l", game="evolution", players_per_match=2)
    page = client.get(f"/ladders/{ladder.pk}/").content.decode()
    assert '<th scope="col" class="num greek">μ</th>' in page
    css = (Path(__file__).resolve().parents[2] / "tournaments" / "static" / "ludus" / "site.css").read_text()
    assert "th .greek, th.greek { text-transform: none; }" in css


def test_each_game_has_its_rules_page_linked_from_home_and_the_viewer(client: Client) -> None:
    from engine import list_games

    home = client.get("/").content.decode()
    for game in list_games():
        page = client.get(f"/rules/{game['name']}/")
        article = page.content.decode().partition('<article class="rules">')[2].partition("</article>")[0]
        assert page.status_code == 200 and "<h1>" in article and "<script" not in article
        assert f'href="/rules/{game["name"]}/"' in home
    assert client.get("/rules/chess/").status_code == 404
    assert client.get("/rules/..%2Fsettings/").status_code == 404
