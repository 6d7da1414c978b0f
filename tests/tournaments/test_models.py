"""The database holds the invariants (docs/architecture.md#data-model): duplicates and half-owned rows raise
IntegrityError."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from replays.models import Replay
from tournaments.models import Bot, BotVersion, Ladder, Match, Rating, Seat

pytestmark = pytest.mark.django_db


def queued_match(tournament: Any, **fields: Any) -> Match:
    values = {"tournament": tournament, "round": 1, "game": "tinynim", "num_players": 2, "seed": 1}
    values.update(fields)
    return Match.objects.create(**values)


def test_it_refuses_two_bots_of_one_owner_with_one_name(alice: Any) -> None:
    Bot.objects.create(owner=alice, name="hunter", game="evolution")
    with pytest.raises(IntegrityError):
        Bot.objects.create(owner=alice, name="hunter", game="evolution")


def test_it_allows_the_same_bot_name_for_different_owners(alice: Any, bob: Any) -> None:
    Bot.objects.create(owner=alice, name="hunter", game="evolution")
    Bot.objects.create(owner=bob, name="hunter", game="evolution")


def test_it_refuses_a_second_version_with_the_same_number(alice: Any) -> None:
    bot = Bot.objects.create(owner=alice, name="hunter", game="evolution")
    BotVersion.objects.create(bot=bot, number=1, source=b"print(1)")
    with pytest.raises(IntegrityError):
        BotVersion.objects.create(bot=bot, number=1, source=b"print(2)")


def test_it_hashes_the_source_and_refuses_to_change_it(alice: Any) -> None:
    bot = Bot.objects.create(owner=alice, name="hunter", game="evolution")
    version = BotVersion.objects.create(bot=bot, number=1, source=b"print(1)", filename="bot.py")
    assert version.size == 8
    assert version.sha256 == hashlib.sha256(b"print(1)").hexdigest()
    version.status = BotVersion.Status.ACTIVE
    version.save()  # metadata may change
    version.source = b"print('evil')"
    with pytest.raises(ValidationError, match="immutable"):
        version.save()
    assert bytes(BotVersion.objects.get(pk=version.pk).source) == b"print(1)"


def test_it_refuses_two_seats_with_one_number(tournament: Any, builtin_versions: dict[str, Any]) -> None:
    match = queued_match(tournament)
    Seat.objects.create(match=match, number=0, bot_version=builtin_versions["greedy"])
    with pytest.raises(IntegrityError):
        Seat.objects.create(match=match, number=0, bot_version=builtin_versions["random"])


def test_it_refuses_a_second_replay_for_a_match(tournament: Any) -> None:
    match = queued_match(tournament)
    Replay.objects.create(match=match, header={}, actions=b"", footer={})
    with pytest.raises(IntegrityError):
        Replay.objects.create(match=match, header={}, actions=b"", footer={})


@pytest.mark.parametrize(
    ("in_ladder", "in_tournament", "round_number"),
    [(False, False, None), (True, True, 1), (True, False, 1), (False, True, None)],
    ids=["neither", "both", "ladder-with-round", "tournament-without-round"],
)
def test_it_puts_a_match_in_exactly_one_competition(
    tournament: Any, in_ladder: bool, in_tournament: bool, round_number: int | None
) -> None:
    ladder = Ladder.objects.create(name="daily", game="tinynim", players_per_match=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.create(
            ladder=ladder if in_ladder else None, tournament=tournament if in_tournament else None,
            round=round_number, game="tinynim", num_players=2, seed=1,
        )


def test_it_keeps_one_rating_per_version_and_competition(tournament: Any, builtin_versions: dict[str, Any]) -> None:
    # create_tournament does not rate yet; start_tournament creates the rows. Here: straight inserts.
    Rating.objects.create(tournament=tournament, bot_version=builtin_versions["greedy-2"], mu=25, sigma=8)
    with pytest.raises(IntegrityError):
        Rating.objects.create(tournament=tournament, bot_version=builtin_versions["greedy-2"], mu=25, sigma=8)
