"""GET /replays/games/<game>.js: each game's board script comes from the registry (engine.registry.viewer_of), so the
replays app names no game; a game with the generic board, or no such game, is a 404 with the reason."""

from __future__ import annotations

from typing import Any

import pytest

from engine.registry import game_names, viewer_of
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", game_names())
def test_it_serves_each_built_in_games_board_script_with_an_etag(client: Any, name: str) -> None:
    response = client.get(f"/replays/games/{name}.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert f"Ludus.games.{name} = " in response.content.decode()
    again = client.get(f"/replays/games/{name}.js", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_a_game_with_the_generic_board_has_no_script(client: Any, tinynim: Any) -> None:
    assert viewer_of("tinynim") == {"script": None, "score_units": ["point", "points"]}
    response = client.get("/replays/games/tinynim.js")
    assert response.status_code == 404


@pytest.mark.parametrize("name", ["no_such_game", "..%2Fsettings"])
def test_an_unknown_game_is_not_found(client: Any, name: str) -> None:
    assert client.get(f"/replays/games/{name}.js").status_code == 404


@pytest.mark.parametrize(("game", "script", "unit"), [("evolution", True, "points"), ("marine", True, "VP"),
                                                       ("tinynim", False, "points")])
def test_the_viewer_page_loads_its_games_script_and_score_unit(client: Any, make_tournament: Any, tinynim: Any,
                                                              game: str, script: bool, unit: str) -> None:
    tournament = make_tournament(game=game)
    match = start_tournament(tournament, enqueue=False)[0]
    run_match(match.pk)
    page = client.get(f"/replays/{match.pk}/").content.decode()
    assert (f'src="/replays/games/{game}.js"' in page) is script
    others = [name for name in game_names() if name != game]
    assert not any(f"/replays/games/{name}.js" in page for name in others)
    assert f'"score_units": ["{unit[:-1] if unit == "points" else unit}", "{unit}"]' in page
