"""`GET /api/games/` and `GET /api/games/{name}/`: the registry, with rules versions and options schemas."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from engine import game_names, load_game

pytestmark = pytest.mark.django_db


def test_it_lists_every_registered_game_for_anyone() -> None:
    response = APIClient().get("/api/games/")
    assert response.status_code == 200
    assert [game["name"] for game in response.json()] == game_names()


def test_it_shows_a_games_rules_version_and_options_schema() -> None:
    body = APIClient().get("/api/games/evolution/").json()
    game = load_game("evolution")
    assert body["rules_version"] == game.rules_version
    assert body["options"]["deck"]["default"] == game.validate_options({})["deck"]
    assert body["min_players"] == game.min_players and body["max_players"] == game.max_players


def test_it_names_the_known_games_for_an_unknown_one() -> None:
    response = APIClient().get("/api/games/chess/")
    assert response.status_code == 404
    assert "known games" in response.json()["detail"]
