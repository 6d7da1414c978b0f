"""Bad tournaments are refused with a clear error and leave nothing half-made (create, start, start again)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from tournaments.models import Bot, BotVersion, Entry, Match, Rating, Tournament
from tournaments.scheduling import create_tournament, start_tournament

pytestmark = pytest.mark.django_db

FORMATS = ["round_robin", "swiss", "single_elimination"]
BAD_FIELDS = [
    ({"players_per_table": 7}, "evolution takes 2-6 players, got 7"),
    ({"players_per_table": 1}, "evolution takes 2-6 players, got 1"),
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"options": {"deck": "huge"}}, "deck"),
    ({"format": "single_elimination", "best_of": 2}, "best of 2 sets can end level; use an odd number"),
]


def counts() -> tuple[int, int, int, int]:
    """Tournaments, entries, matches, ratings: the rows a start would leave half-made."""
    return Tournament.objects.count(), Entry.objects.count(), Match.objects.count(), Rating.objects.count()


def fields(**extra: Any) -> dict[str, Any]:
    values: dict[str, Any] = {"name": "cup", "game": "evolution", "players_per_table": 2, "games_per_set": 2}
    values.update(extra)
    return values


@pytest.mark.parametrize("format_", FORMATS)
@pytest.mark.parametrize(("extra", "message"), BAD_FIELDS, ids=[m[:30] for _, m in BAD_FIELDS])
def test_bad_settings_are_refused_and_nothing_is_created(
    builtin_versions: dict[str, Any], format_: str, extra: dict[str, Any], message: str
) -> None:
    versions = list(builtin_versions.values())
    with pytest.raises(ValidationError) as raised:
        create_tournament(versions, **fields(**{"format": format_, **extra}))
    assert message in " ".join(raised.value.messages)
    assert counts() == (0, 0, 0, 0)


@pytest.mark.parametrize("format_", FORMATS)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fewer_entries_than_a_table_are_refused(builtin_versions: dict[str, Any], format_: str, players: int) -> None:
    from tournaments.builtins import ensure_builtin

    versions = [ensure_builtin(f"random-{i}", "random") for i in range(players - 1)]
    with pytest.raises(ValidationError, match=f"a table of {players} needs at least {players} bots, got {players - 1}"):
        create_tournament(versions, **fields(format=format_, players_per_table=players))
    assert counts() == (0, 0, 0, 0)


@pytest.mark.parametrize("status", [BotVersion.Status.REJECTED, BotVersion.Status.PENDING,
                                    BotVersion.Status.RETIRED])
def test_an_entry_of_a_version_that_is_not_active_is_refused(
    builtin_versions: dict[str, Any], alice: Any, status: str
) -> None:
    bot = Bot.objects.create(owner=alice, name="broken", game="evolution")
    version = BotVersion.objects.create(bot=bot, number=1, source=b"import ludus\n", status=status)
    with pytest.raises(ValidationError, match=f"broken@1 is {status}, not active"):
        create_tournament([builtin_versions["greedy"], version], **fields(format="swiss"))
    assert counts() == (0, 0, 0, 0)


def test_a_version_rejected_after_entering_stops_the_start_and_nothing_is_scheduled(
    builtin_versions: dict[str, Any], alice: Any
) -> None:
    bot = Bot.objects.create(owner=alice, name="late", game="evolution")
    version = BotVersion.objects.create(bot=bot, number=1, source=b"import ludus\n", status=BotVersion.Status.ACTIVE)
    tournament = create_tournament([builtin_versions["greedy"], version], **fields(format="single_elimination"))
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.REJECTED)
    with pytest.raises(ValidationError, match="late@1 is rejected, not active"):
        start_tournament(tournament, enqueue=False)
    tournament.refresh_from_db()
    assert tournament.state == "draft" and tournament.current_round == 0
    assert counts() == (1, 2, 0, 0)


@pytest.mark.parametrize("format_", FORMATS)
def test_starting_twice_is_refused_and_schedules_nothing_more(builtin_versions: dict[str, Any], format_: str) -> None:
    tournament = create_tournament(list(builtin_versions.values()), **fields(format=format_))
    start_tournament(tournament, enqueue=False)
    before = counts()
    with pytest.raises(ValidationError, match="is running, not a draft: it was started already"):
        start_tournament(tournament, enqueue=False)
    stale = Tournament.objects.get(pk=tournament.pk)
    stale.state = Tournament.State.DRAFT  # a stale copy, as from a second browser tab, is refused too
    with pytest.raises(ValidationError, match="started already"):
        start_tournament(stale, enqueue=False)
    assert counts() == before


def test_a_repeated_entry_is_refused(builtin_versions: dict[str, Any]) -> None:
    greedy = builtin_versions["greedy"]
    with pytest.raises(ValidationError, match="each bot version may enter only once"):
        create_tournament([greedy, greedy], **fields())
    assert counts() == (0, 0, 0, 0)
