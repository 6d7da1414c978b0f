"""Events handed to the seats that asked for their history (workers/play.py hand_events, docs/bots.md "History")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import load_game
from engine.core import JSON
from workers.play import hand_events


class Keeper:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def add_events(self, events: list[Any]) -> None:
        self.events += events


def _events() -> list[JSON]:
    return [{"type": "fed", "seat": 1, "food": [1, 2]}]


def test_public_events_are_copied_once_for_every_seat_that_asked_and_shared_with_no_state() -> None:
    game = load_game("evolution")  # keeps Game.seat_events: every event public
    seats, events = [Keeper(), Keeper(), Keeper()], _events()
    hand_events(game, seats, events, [True, False, True])  # type: ignore[arg-type]
    assert seats[0].events == events and seats[1].events == [] and seats[2].events == events
    events[0]["food"].append(3)  # the engine's own event changes later: what the seats were handed does not
    assert seats[0].events == seats[2].events == _events()


def test_a_game_that_hides_events_per_seat_is_asked_for_each_seat() -> None:
    base = load_game("evolution")

    class Hiding(type(base)):  # type: ignore[misc]
        def seat_events(self, seat: int, events: Sequence[JSON]) -> list[JSON]:
            return [{"seen_by": seat}]

    game = Hiding.__new__(Hiding)
    game.__dict__.update(base.__dict__)
    seats = [Keeper(), Keeper()]
    hand_events(game, seats, _events(), [True, True])  # type: ignore[arg-type]
    assert [seat.events for seat in seats] == [[{"seen_by": 0}], [{"seen_by": 1}]]
