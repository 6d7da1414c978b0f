"""The rules pages (tournaments/pages/rules.py): a player's summary first, the exact rules behind a link, a table
of contents whose links land on the sections, and the files' own links still landing."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from engine import list_games

pytestmark = pytest.mark.django_db
GAMES = [str(g["name"]) for g in list_games()]


def article(page: str) -> str:
    return page.partition('<article class="rules">')[2].partition("</article>")[0]


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_page_is_a_players_summary_with_the_exact_rules_behind_a_link(client: Client, game: str) -> None:
    page = client.get(f"/rules/{game}/").content.decode()
    summary = article(page)
    for section in ("How a round goes", "How you score", "What is hidden"):
        assert f">{section}</h2>" in summary, section
    assert "random.Random" not in summary and "seeds/" not in summary  # no implementer's detail
    assert len(summary) < len(article(client.get(f"/rules/{game}/spec/").content.decode())) / 3
    assert f'href="/rules/{game}/spec/"' in page and 'href="spec/"' in summary


@pytest.mark.parametrize("game", GAMES)
def test_every_contents_link_lands_on_a_section_of_the_exact_rules(client: Client, game: str) -> None:
    spec = client.get(f"/rules/{game}/spec/").content.decode()
    anchors = set(re.findall(r'<h[23] id="([^"]+)"', spec))
    contents = spec.partition('id="contents-h"')[2].partition("</nav>")[0]
    linked = re.findall(r'href="#([^"]+)"', contents)
    assert len(linked) >= 8 and set(linked) <= anchors
    from_summary = re.findall(rf'href="/rules/{game}/spec/#([^"]+)"', client.get(f"/rules/{game}/").content.decode())
    assert from_summary == linked
    own = set(re.findall(r'href="#([^"]+)"', article(spec)))  # the file's own links, e.g. "#rulings"
    assert own <= anchors, own - anchors


def test_an_anchor_is_the_one_github_makes() -> None:
    from tournaments.pages.rules import slug

    assert slug("The end of the game") == "the-end-of-the-game"
    assert slug("The state dict (`to_dict` / `GAME.state_from_dict`)") == "the-state-dict-to_dict--gamestate_from_dict"
    assert slug("A round: placing pawns [ours: placement]") == "a-round-placing-pawns-ours-placement"
