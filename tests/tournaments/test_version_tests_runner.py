"""Version tests (tournaments/version_tests.py): duplicate deals, batches, the stop, the share, bad input."""

from __future__ import annotations

from typing import Any

import pytest

from replays.version_test_measures import advance, measure_games
from tournaments.builtins import ensure_builtin
from tournaments.dispatch import runner
from tournaments.models import Bot, BotVersion, Match, VersionTest
from tournaments.new_matches import create_match
from tournaments.system_ladders import system_ladder
from tournaments.version_tests import TestRefused, TestRequest, advance_test, cancel_test, may_queue_batch, start_test

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_here")]


@pytest.fixture
def greedy() -> BotVersion:
    return ensure_builtin("greedy")


@pytest.fixture
def weak() -> BotVersion:
    return ensure_builtin("greedy_eps50")


def private_version(owner: Any, game: str = "marine") -> BotVersion:
    bot = Bot.objects.create(owner=owner, name="secret", game=game, visibility=Bot.Visibility.PRIVATE)
    return BotVersion.objects.create(bot=bot, number=1, source=b"print(1)\n", filename="main.py",
                                     status=BotVersion.Status.ACTIVE)


def play_queued(test: VersionTest) -> None:
    for match_id in Match.objects.filter(version_test_game__test=test, status=Match.Status.QUEUED).values_list(
            "pk", flat=True):
        assert runner().run_match_here(match_id) == "finished"


def test_it_plays_each_deal_twice_with_new_and_base_swapped_and_the_field_fixed(alice, greedy, weak):
    test = start_test(alice, TestRequest(new=weak.pk, base=greedy.pk, game="evolution", players=3,
                                         field=["random"], batch_deals=3))
    games = list(test.games.select_related("match").order_by("deal", "swapped"))
    assert [(g.deal, g.swapped) for g in games] == [(d, s) for d in range(3) for s in (False, True)]
    field = test.field[0]
    for first, second in zip(games[::2], games[1::2], strict=True):
        one, two = ([s.bot_version_id for s in g.match.seats.order_by("number")] for g in (first, second))
        assert first.match.seed == second.match.seed
        assert (first.new_seat, first.base_seat) == (second.base_seat, second.new_seat)
        assert one[first.new_seat] == two[second.new_seat] == weak.pk
        assert one[first.base_seat] == two[second.base_seat] == greedy.pk
        assert [v for v in one if v == field] == [field] and one.index(field) == two.index(field)
        assert first.match.rated is False and second.match.rated is False
    assert len({g.match.seed for g in games}) == 3
    assert sorted({g.new_seat for g in games}) == [0, 1, 2]  # new takes every seat position of the pair


def test_a_played_batch_is_tallied_and_the_next_one_queued(alice, greedy, weak):
    test = start_test(alice, TestRequest(new=greedy.pk, base=weak.pk, game="marine", players=2, batch_deals=2,
                                         max_games=40))
    assert advance(test.pk) == "playing"
    play_queued(test)  # the runner advances the test after its last game: the next batch is queued
    assert advance(test.pk) == "playing"
    test.refresh_from_db()
    assert test.games_played == 4 and test.games.count() == 8
    assert len(test.results["deals"]) == 2 and test.results["llr_history"] == [[4, round(test.llr, 4)]]
    new = test.results["versions"]["new"]
    assert new["games"] == 4 and new["moves"] > 0 and new["cpu_ms"] >= 0
    assert test.results["score"]["low"] <= test.results["score"]["mean"] <= test.results["score"]["high"]
    assert VersionTest.objects.get(pk=test.pk).games_played == 4  # advancing twice tallies once


def test_it_stops_undecided_at_the_game_cap(alice, greedy):
    test = start_test(alice, TestRequest(new=greedy.pk, base=greedy.pk, game="marine", max_games=4, batch_deals=4))
    assert test.games.count() == 4  # the cap bounds the first batch too
    play_queued(test)
    assert advance(test.pk) == VersionTest.Status.CAPPED
    test.refresh_from_db()
    assert test.finished_at is not None and test.games_played == 4
    assert test.results["deals"] == {"0": 0.0, "1": 0.0}  # greedy against itself: each deal's pair cancels
    assert advance(test.pk) == VersionTest.Status.CAPPED


@pytest.mark.slow  # a few dozen games to a decision
def test_a_far_better_version_passes(alice, greedy):
    rand = ensure_builtin("random")
    test = start_test(alice, TestRequest(new=greedy.pk, base=rand.pk, game="marine", d0=0.0, d1=0.3,
                                         batch_deals=8, max_games=400))
    while test.is_running():
        play_queued(test)
        advance(test.pk)
        test.refresh_from_db()
    assert test.status == VersionTest.Status.PASSED, test.results
    assert test.llr >= test.results["bounds"][1]
    assert test.results["score"]["mean"] > 0.3


def test_a_failed_game_voids_its_deal(alice, greedy, weak):
    test = start_test(alice, TestRequest(new=greedy.pk, base=weak.pk, game="marine", batch_deals=1))
    first, second = test.games.select_related("match").order_by("swapped")
    runner().run_match_here(first.match_id)
    Match.objects.filter(pk=second.match_id).update(status=Match.Status.FAILED)
    advance(test.pk)
    test.refresh_from_db()
    assert test.results["void"] == [0] and test.results["deals"] == {} and test.games_played == 1


def test_cancelling_cancels_the_queued_games(alice, greedy, weak):
    test = start_test(alice, TestRequest(new=greedy.pk, base=weak.pk, game="marine"))
    assert cancel_test(test) and not cancel_test(test)
    assert not Match.objects.filter(version_test_game__test=test, status=Match.Status.QUEUED).exists()
    assert advance_test(test.pk) == VersionTest.Status.CANCELLED


def test_tests_wait_while_ladder_matches_queue_and_tests_took_their_share(alice, greedy, weak, settings):
    settings.LUDUS_TEST_SHARE = 0.25
    test = start_test(alice, TestRequest(new=greedy.pk, base=weak.pk, game="marine", batch_deals=1))
    assert may_queue_batch()  # nothing else waits
    ladder = system_ladder("some ladder ", "marine", 2, "a ladder's queued match")
    create_match(ladder, [greedy, weak], 5)
    play_queued(test)  # tests had all the workers' time, and a ladder match waits: the next batch is held
    assert not may_queue_batch()
    assert advance(test.pk) == "held" and test.games.count() == 2
    settings.LUDUS_TEST_SHARE = 1.01  # no cap
    assert advance(test.pk) == VersionTest.Status.RUNNING and test.games.count() == 4


def test_a_test_of_a_private_version_is_private(alice, greedy):
    version = private_version(alice)
    test = start_test(alice, TestRequest(new=version.pk, base=greedy.pk))
    assert test.visibility == Bot.Visibility.PRIVATE and test.game == "marine"


BAD = [
    ({"new": 0}, "new", "no bot version 0"),
    ({"players": 7}, "players", "players"),
    ({"players": 3, "field": ["random", "greedy"]}, "field", "leave 1 seat"),
    ({"players": 3, "field": ["nobody"]}, "field", "neither a built-in bot"),
    ({"d0": 0.1, "d1": 0.0}, "bounds", "d0 < d1"),
    ({"alpha": 0.7}, "bounds", "alpha and beta"),
    ({"max_games": 1}, "max_games", "game cap"),
    ({"batch_deals": 0}, "batch_deals", "1 to 100"),
    ({"options": {"nope": 1}}, "options", "nope"),
    ({"game": "chess"}, "game", "chess"),
]


@pytest.mark.parametrize(("change", "field", "message"), BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_it_refuses_bad_input_naming_the_field(alice, greedy, weak, change, field, message):
    request = {"new": greedy.pk, "base": weak.pk, "game": "marine"} | change
    with pytest.raises(TestRefused, match=message) as caught:
        start_test(alice, TestRequest(**request))
    assert caught.value.field == field
    assert not VersionTest.objects.exists()


def test_another_users_private_version_answers_like_one_that_does_not_exist(alice, bob, greedy):
    version = private_version(alice)
    with pytest.raises(TestRefused, match=f"no bot version {version.pk}$"):
        start_test(bob, TestRequest(new=version.pk, base=greedy.pk))


def test_a_pending_version_cannot_be_tested(alice, greedy):
    version = private_version(alice)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.PENDING)
    with pytest.raises(TestRefused, match="is pending"):
        start_test(alice, TestRequest(new=version.pk, base=greedy.pk))


def test_measures_come_from_the_replay(alice, greedy, weak):
    test = start_test(alice, TestRequest(new=greedy.pk, base=weak.pk, game="marine", batch_deals=1))
    play_queued(test)
    ids = list(test.games.filter(match__status=Match.Status.FINISHED).values_list("match_id", flat=True))
    measured = measure_games(ids)
    assert set(measured) == set(ids)
    assert all(seat["moves"] == len(seat["ms"]) > 0 for seats in measured.values() for seat in seats.values())
