"""manage.py branch, and branches run by the real runner on PostgreSQL (docs/branches.md): unrated, linked to the
parent, their replays verify, and a branch that changes nothing replays the parent's remaining moves."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from replays.branches import describe
from replays.management.commands.branch import OPERATOR
from replays.models import Replay
from replays.verify import verify_document
from tournaments.models import Bot, BotVersion, Match, Rating, Seat
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def branch(*args: Any) -> tuple[list[Match], str]:
    out = StringIO()
    before = set(Match.objects.values_list("pk", flat=True))
    call_command("branch", *[str(a) for a in args], "--no-wait", stdout=out)
    return list(Match.objects.exclude(pk__in=before).order_by("pk")), out.getvalue()


def moves(match: Match) -> list[tuple[int, int]]:
    return [(r["seat"], r["choice"]) for r in Replay.objects.get(match=match).action_log()]


def test_a_branch_that_changes_nothing_plays_on_as_the_parent_did(parent: Match) -> None:
    [child], out = branch(parent.pk, "--step", 12)
    assert f"branch match {child.pk} of match {parent.pk} at step 12: queued" in out
    assert run_match(child.pk) == "finished"
    child.refresh_from_db()
    assert (child.rated, child.parent_id, child.branch_step, child.ladder.name) == (False, parent.pk, 12,
                                                                                     "branches marine")
    assert moves(child) == moves(parent)
    replay = Replay.objects.get(match=child)
    assert replay.header["branch"] == {"parent": parent.pk, "step": 12, "force": None, "resample": None}
    assert verify_document(replay.document())["digest"] == replay.footer["digest"] == \
        Replay.objects.get(match=parent).footer["digest"]
    assert not Rating.objects.filter(ladder=child.ladder).exists()  # never rated: no standings either


def test_other_bots_and_a_forced_option_play_a_branch_that_verifies(parent: Match) -> None:
    [child], _ = branch(parent.pk, "--step", 5, "--force", 1, "--seat", "2=random")
    assert run_match(child.pk) == "finished"
    replay = Replay.objects.get(match=child)
    assert moves(child)[:4] == moves(parent)[:4]
    assert replay.action_log()[4]["forced"] is True and replay.action_log()[4]["choice"] == 1
    assert replay.header["seats"][1]["bot"] == "random"
    verify_document(replay.document())


def test_seats_are_counted_from_1_and_the_changed_seat_is_named_with_its_bots(parent: Match) -> None:
    """--seat 2=BOT replaces the pages' Seat 2 (the match's second seat), and the queued line says so."""
    [child], out = branch(parent.pk, "--step", 5, "--seat", "2=random")
    assert [seat.bot_version.builtin for seat in child.seats.order_by("number")] == ["greedy", "random"]
    assert f"branch match {child.pk} of match {parent.pk} at step 5, seat 2 plays built-in random instead of " \
           "greedy-2@1: queued" in out


def test_an_uploaded_seat_is_said_to_start_without_its_memory(parent: Match, alice: Any) -> None:
    [child], _ = branch(parent.pk, "--step", 5)
    scout = Bot.objects.create(owner=alice, name="scout", game="marine")
    version = BotVersion.objects.create(bot=scout, number=1, source=b"x", status=BotVersion.Status.ACTIVE)
    Seat.objects.filter(match=child, number=0).update(bot_version=version)
    assert describe(OPERATOR, child) == "at step 5, seat 1 plays scout@1 instead of built-in greedy, seat 1's " \
                                        "uploaded bot starts at the branch point without its memory of the parent's " \
                                        "steps"


@pytest.mark.parametrize("spec", ["0=greedy", "3=greedy"])
def test_a_seat_outside_1_to_n_is_refused_naming_the_range(parent: Match, spec: str) -> None:
    with pytest.raises(CommandError) as raised:
        call_command("branch", str(parent.pk), "--step", "3", "--seat", spec, "--no-wait", stdout=StringIO())
    assert str(raised.value) == f"--seat: seat {spec[0]} is not a seat of match {parent.pk}: its seats are 1 to 2 " \
                                "(counted from 1, as on the pages)"


def test_resampled_games_play_on_workers_and_verify(parent: Match) -> None:
    children, out = branch(parent.pk, "--step", 15, "--resample", "--games", 3, "--seed", 5)
    assert len(children) == 3 and out.count("resampled with seed") == 3
    for child in children:
        assert run_match(child.pk) == "finished"
        replay = Replay.objects.get(match=child)
        assert replay.header["branch"]["resample"] == child.branch_resample
        assert moves(child)[:15] == moves(parent)[:15]
        assert verify_document(replay.document())["digest"] == replay.footer["digest"]
    assert len({child.branch_resample for child in children}) == 3


def test_a_game_that_cannot_be_resampled_is_refused_at_once(tinynim: Any, make_tournament: Any) -> None:
    from tournaments.scheduling import start_tournament

    match = start_tournament(make_tournament())[0]
    assert run_match(match.pk) == "finished"
    with pytest.raises(CommandError, match="^--resample: tinynim states cannot be resampled$"):
        call_command("branch", str(match.pk), "--step", "1", "--resample", "--no-wait", stdout=StringIO())


@pytest.mark.parametrize(("args", "message"), [
    (("--step", "-1"), "--step: step -1 is not a step to branch from"),
    (("--step", "3", "--seat", "one=greedy"), "--seat takes N=BOT (a seat number, a built-in bot or a bot version "
                                              "id), got 'one=greedy'"),
    (("--step", "3", "--games", "3"), "--games: more than one game needs resample"),
    (("--step", "3", "--as", "nobody"), "--as: no user 'nobody'"),
])
def test_each_bad_argument_gets_one_line(parent: Match, args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError) as raised:
        call_command("branch", str(parent.pk), *args, "--no-wait", stdout=StringIO())
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_a_missing_match_is_named() -> None:
    with pytest.raises(CommandError, match="no match 987654"):
        call_command("branch", "987654", "--step", "1")


def test_a_resampled_branchs_file_verifies_offline_without_its_parent(parent: Match, tmp_path: Any) -> None:
    [child], _ = branch(parent.pk, "--step", 8, "--resample", "--seed", 3)
    assert run_match(child.pk) == "finished"
    path = tmp_path / "branch.replay.gz"
    call_command("replay", "export", str(child.pk), "-o", str(path), stdout=StringIO())
    Match.objects.filter(pk=parent.pk).delete()  # the parent goes; so do its branches' rows, not the file
    out = StringIO()
    call_command("replay", "verify", str(path), stdout=out)
    assert out.getvalue().endswith("1 verified, 0 mismatched\n"), out.getvalue()
