"""Tournaments and version tests move on only from verified results (docs/architecture.md#replays): a result whose
replay is still verifying may yet be reverted, so no Swiss pairing, elimination, final standing or version test's
tally may rest on it.

The attack: a worker records a result whose replay does not re-simulate (here, its log's first action booked to the
wrong seat), and its verification is late (the message not yet taken). Before this rule the next round was paired
from that result the moment the round's last match was recorded, and the revert that followed left the round
standing. Matches run in this process through the real runner on PostgreSQL; the verification is held back, then
run as its task would run it.
"""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command
from django.db import DatabaseError
from django.utils import timezone
from rich.console import Console

import workers.runner
from config.settings import replay_storage
from replays.models import Replay
from replays.storage import replay_store
from replays.verification import verify_replay
from replays.version_test_measures import advance
from tournaments.advancement import advance_tournament
from tournaments.builtins import ensure_builtin
from tournaments.models import Match, Tournament
from tournaments.scheduling import create_tournament, start_tournament
from tournaments.services import requeue_failed
from tournaments.version_tests import TestRequest, start_test
from workers.runner import run_match

pytestmark = pytest.mark.django_db


def make(format: str, **fields: Any) -> Tournament:
    versions = [ensure_builtin(f"{'greedy' if i % 2 else 'random'}-{i}", "greedy" if i % 2 else "random")
                for i in range(4)]
    return create_tournament(versions, name="cup", game="tinynim", players_per_table=2, games_per_set=1, seed=3,
                             format=format, **fields)


@pytest.fixture
def late_verification(monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path) -> None:
    """The runner's verification message not yet taken by any worker: the replays stay verifying. In a replay store
    of the test's own: these tests delete and corrupt stored files, and the same game's replay in another test
    process has the same bytes, so the same key."""
    monkeypatch.setattr(workers.runner, "send_verification", lambda match_id: None)
    settings.STORAGES = {**settings.STORAGES, "replays": replay_storage(None, tmp_path)}


def run_round(tournament: Tournament, number: int | None = None) -> list[int]:
    """Run the queued matches of round number (None: of every round); return their ids."""
    queued = tournament.matches.filter(status=Match.Status.QUEUED)
    played = list((queued if number is None else queued.filter(round=number)).order_by("pk")
                  .values_list("pk", flat=True))
    assert played
    for match_id in played:
        assert run_match(match_id) == "finished"
    return played


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_a_swiss_round_is_not_paired_from_a_result_that_is_then_reverted(monkeypatch: pytest.MonkeyPatch) -> None:
    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    real_play_game = workers.runner.play_game

    def corrupted_once(*args: Any, **kwargs: Any) -> Any:
        result = real_play_game(*args, **kwargs)
        result.actions[0]["seat"] = 1 - result.actions[0]["seat"]  # as if a record went to the wrong seat
        monkeypatch.setattr(workers.runner, "play_game", real_play_game)
        return result

    monkeypatch.setattr(workers.runner, "play_game", corrupted_once)
    bad, good = run_round(tournament, 1)
    assert Replay.objects.get(match_id=bad).verification == "verifying"
    assert not tournament.matches.filter(round=2).exists()  # the attack: paired from the unverified result
    assert advance_tournament(tournament.pk) == "waiting on verification"

    assert verify_replay(good) == "verified"
    assert not tournament.matches.filter(round=2).exists()  # one result still verifying
    assert verify_replay(bad) == "mismatch"
    assert Match.objects.get(pk=bad).status == "failed"
    assert advance_tournament(tournament.pk) == "waiting on failed"
    assert not tournament.matches.filter(round=2).exists()
    tournament.refresh_from_db()
    assert tournament.current_round == 1 and tournament.state == "running"


@pytest.mark.usefixtures("tinynim", "late_verification")
@pytest.mark.parametrize("format", ["swiss", "single_elimination"])
def test_the_last_verification_of_a_round_pairs_the_next(format: str) -> None:
    tournament = make(format, **({"rounds": 2} if format == "swiss" else {}))
    start_tournament(tournament, enqueue=False)
    first, last = run_round(tournament, 1)
    assert not tournament.matches.filter(round=2).exists()
    assert verify_replay(first) == "verified"
    assert not tournament.matches.filter(round=2).exists()
    assert verify_replay(last) == "verified"  # the verification itself moves the tournament on
    assert tournament.matches.filter(round=2, status="queued").count() == (2 if format == "swiss" else 1)
    tournament.refresh_from_db()
    assert tournament.current_round == 2


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_a_round_robin_finishes_only_once_its_last_result_is_verified() -> None:
    tournament = make("round_robin")
    start_tournament(tournament, enqueue=False)
    played = run_round(tournament)
    tournament.refresh_from_db()
    assert tournament.state == "running" and tournament.finished_at is None
    assert advance_tournament(tournament.pk) == "waiting on verification"
    for match_id in played:
        assert verify_replay(match_id) == "verified"
    tournament.refresh_from_db()
    assert tournament.state == "finished" and tournament.finished_at is not None


@pytest.mark.usefixtures("late_verification")
def test_a_version_test_tallies_no_game_whose_replay_is_then_reverted(alice: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    greedy, weak = ensure_builtin("greedy"), ensure_builtin("greedy_eps50")
    test = start_test(alice, TestRequest(new=greedy.pk, base=weak.pk, game="marine", players=2, batch_deals=1,
                                         max_games=40))
    real_play_game = workers.runner.play_game

    def corrupted_once(*args: Any, **kwargs: Any) -> Any:
        result = real_play_game(*args, **kwargs)
        result.actions[0]["seat"] = 1 - result.actions[0]["seat"]
        monkeypatch.setattr(workers.runner, "play_game", real_play_game)
        return result

    monkeypatch.setattr(workers.runner, "play_game", corrupted_once)
    bad, good = test.games.order_by("swapped").values_list("match_id", flat=True)
    for match_id in (bad, good):
        assert run_match(match_id) == "finished"
    assert advance(test.pk) == "verifying"  # the attack: the deal tallied from a result not yet verified
    test.refresh_from_db()
    assert test.games_played == 0 and test.results["deals"] == {}
    assert verify_replay(good) == "verified"
    assert verify_replay(bad) == "mismatch"  # and the verification advances the test: the deal is void
    test.refresh_from_db()
    assert test.games_played == 1 and test.results["deals"] == {} and test.results["void"] == [0]
    assert test.games.count() == 4  # the next batch queued


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_a_re_simulation_that_raises_is_a_mismatch_and_leaves_no_round_waiting_forever(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that fails re-simulating a game its own run played through (a bug, a dependency changed) must not
    leave the replay verifying, and the round waiting on it, for ever: the game does not re-simulate."""
    import replays.verification

    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    first, second = run_round(tournament, 1)
    assert verify_replay(first) == "verified"

    def engine_bug(document: Any) -> None:
        raise KeyError("species")

    monkeypatch.setattr(replays.verification, "verify_document", engine_bug)
    assert verify_replay(second) == "mismatch"
    replay = Replay.objects.get(match_id=second)
    assert replay.verification == "mismatch" and replay.verify_error == "the re-simulation raised KeyError: 'species'"
    assert advance_tournament(tournament.pk) == "waiting on failed"


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_a_replay_the_store_cannot_return_is_waited_for_never_reverted() -> None:
    """A store that answers that the key holds nothing may not be the one that holds it (workers on separate
    machines, each misconfigured with a filesystem store of its own: benchmarks/separate_workers.py showed it): the
    result stays, unverified, and the round waits until the file can be read."""
    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    unread, good = run_round(tournament, 1)
    replay = Replay.objects.get(match_id=unread)
    assert replay.location, "the replay's log is in the store"
    with replay_store().open(replay.location, "rb") as file:
        kept = file.read()
    replay_store().delete(replay.location)
    assert verify_replay(good) == "verified"
    assert verify_replay(unread) == "unavailable"
    assert Match.objects.get(pk=unread).status == "finished"
    assert advance_tournament(tournament.pk) == "waiting on verification"
    replay_store().save(replay.location, ContentFile(kept))  # the store that holds it answers again
    assert verify_replay(unread) == "verified"  # and the round moves on
    assert tournament.matches.filter(round=2, status="queued").count() == 2


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_an_operator_voids_a_replay_whose_file_is_lost_and_the_round_moves_on_after_its_replay() -> None:
    """A file lost for good (no backup) would hold its round for ever: `replay void` reverts that result as a
    mismatch's, the organiser requeues the match, and the round moves on from the new, verified result."""
    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    lost, good = run_round(tournament, 1)
    replay_store().delete(Replay.objects.get(match_id=lost).location)
    assert verify_replay(good) == "verified"
    assert verify_replay(lost) == "unavailable"
    out = io.StringIO()
    call_command("replay", "void", str(lost), "--reason", "the store's disk died", stdout=out)
    assert f"match {lost}: result reverted" in out.getvalue()
    match = Match.objects.get(pk=lost)
    assert match.status == "failed"
    assert match.error == "replay verification failed: voided by an operator: the store's disk died"
    assert not match.seats.exclude(rank=None).exists()  # its seats' results cleared
    replay = Replay.objects.get(match_id=lost)
    assert (replay.verification, replay.verify_error) == ("mismatch", "voided by an operator: the store's disk died")
    assert advance_tournament(tournament.pk) == "waiting on failed"
    assert requeue_failed(tournament) == 1
    run_round(tournament, 1)
    assert verify_replay(lost) == "verified"  # its new replay replaces the flagged one, and the round moves on
    assert tournament.matches.filter(round=2, status="queued").count() == 2


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_only_a_replay_still_verifying_can_be_voided() -> None:
    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    verified, _ = run_round(tournament, 1)
    assert verify_replay(verified) == "verified"
    for ref, said in [(verified, f"match {verified} has no replay still verifying: only a replay still verifying"),
                      (999_999, "match 999999 has no replay still verifying")]:
        with pytest.raises(CommandError, match=said):
            call_command("replay", "void", str(ref), "--reason", "lost")
    assert Match.objects.get(pk=verified).status == "finished"  # a verified result stands
    with pytest.raises(CommandError, match="--reason"):
        call_command("replay", "void", str(verified))


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_bytes_in_the_store_that_are_not_the_recorded_ones_are_a_mismatch() -> None:
    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    swapped, good = run_round(tournament, 1)
    replay = Replay.objects.get(match_id=swapped)
    with replay_store().open(replay.location, "wb") as file:
        file.write(b"not this replay")
    assert verify_replay(swapped) == "mismatch"
    assert "the stored bytes (15) have sha256" in Replay.objects.get(match_id=swapped).verify_error
    assert verify_replay(good) == "verified"
    assert advance_tournament(tournament.pk) == "waiting on failed"


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_one_replay_the_sweep_cannot_verify_does_not_keep_it_from_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep takes the oldest first: one whose verification fails (here the database refusing it: not the game's,
    so not a mismatch) is left for the next sweep, and the others are verified meanwhile."""
    import replays.verification

    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    first, second = run_round(tournament, 1)
    Replay.objects.filter(match_id=first).update(created_at=timezone.now() - timedelta(hours=1))
    real_verify = replays.verification.verify_document

    def refused(document: Any) -> None:
        if document["header"]["match"] == first:
            raise DatabaseError("could not serialize access")
        real_verify(document)

    monkeypatch.setattr(replays.verification, "verify_document", refused)
    assert replays.verification.sweep_unverified(0) == 2
    assert Replay.objects.get(match_id=second).verification == "verified"
    assert Replay.objects.get(match_id=first).verification == "verifying"  # for the next sweep
    assert Match.objects.get(pk=first).status == "finished"


@pytest.mark.usefixtures("tinynim", "late_verification")
@pytest.mark.parametrize("failure", [MemoryError(), RecursionError("maximum recursion depth exceeded"),
                                     DatabaseError("the connection was lost"), SoftTimeLimitExceeded()])
def test_what_is_not_the_games_leaves_the_result_verifying_never_reverted(
        failure: BaseException, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's memory or stack, the database, a Celery time limit: a valid result must not be reverted for
    them. The verification raises, the replay stays verifying for the sweep, and a sweep stops at a time limit."""
    import replays.verification

    tournament = make("swiss", rounds=2)
    start_tournament(tournament, enqueue=False)
    first, _ = run_round(tournament, 1)

    def worker_failure(document: Any) -> None:
        raise failure

    monkeypatch.setattr(replays.verification, "verify_document", worker_failure)
    with pytest.raises(type(failure)):
        verify_replay(first)
    assert Replay.objects.get(match_id=first).verification == "verifying"
    assert Match.objects.get(pk=first).status == "finished"
    if isinstance(failure, SoftTimeLimitExceeded):
        with pytest.raises(SoftTimeLimitExceeded):
            replays.verification.sweep_unverified(0)


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_replays_the_sweep_cannot_read_do_not_keep_it_from_a_newer_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replays whose files cannot be read stay verifying (never reverted for the store's sake), and are always the
    oldest: half of each sweep is taken at random, so a newer one whose message was lost is reached all the same."""
    import replays.verification

    monkeypatch.setattr(replays.verification, "SWEEP_BATCH", 2)
    tournament = make("round_robin")
    start_tournament(tournament, enqueue=False)
    *unreadable, lost_message = run_round(tournament)[:4]
    for age, match_id in enumerate(unreadable):
        replay = Replay.objects.get(match_id=match_id)
        replay_store().delete(replay.location)
        Replay.objects.filter(pk=replay.pk).update(created_at=timezone.now() - timedelta(hours=age + 1))
    Replay.objects.filter(match__tournament=tournament).exclude(match_id__in=[*unreadable, lost_message]).update(
        verification="verified")
    for _ in range(30):  # each sweep reaches it with a chance of 1/3 at least
        replays.verification.sweep_unverified(0)
        if Replay.objects.get(match_id=lost_message).verification == "verified":
            break
    assert Replay.objects.get(match_id=lost_message).verification == "verified"
    assert set(Replay.objects.filter(match_id__in=unreadable).values_list("verification", flat=True)) == {"verifying"}


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_run_tournament_verifies_what_no_pool_child_did_and_sees_the_end(settings: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded runner has no beat: with every match played, replays left verifying (a pool child stopped
    before it verified) are verified by `run_tournament`'s wait itself, and the tournament ends."""
    import tournaments.cli

    settings.CELERY_BROKER_URL = ""  # the embedded runner, as in the demo
    monkeypatch.setattr(tournaments.cli, "VERIFY_NUDGE_S", 0.05)
    tournament = make("round_robin")
    start_tournament(tournament, enqueue=False)
    run_round(tournament)
    assert advance_tournament(tournament.pk) == "waiting on verification"
    tournaments.cli.run_to_end(tournament, Console(file=io.StringIO()), timeout_s=60)
    tournament.refresh_from_db()
    assert tournament.state == "finished"
    assert not Replay.objects.filter(match__tournament=tournament).exclude(verification="verified").exists()


@pytest.mark.usefixtures("tinynim", "late_verification")
def test_run_tournament_waits_through_a_verification_that_fails_for_the_database(
        settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A verification the database refuses (not the game's: left verifying) does not end `run_tournament`: it tries
    again at its next look, and sees the end."""
    import replays.verification
    import tournaments.cli

    settings.CELERY_BROKER_URL = ""
    monkeypatch.setattr(tournaments.cli, "VERIFY_NUDGE_S", 0.05)
    tournament = make("round_robin")
    start_tournament(tournament, enqueue=False)
    run_round(tournament)
    real_verify, refusals = replays.verification.verify_document, []

    def refused_twice(document: Any) -> None:
        if len(refusals) < 2:
            refusals.append(document["header"]["match"])
            raise DatabaseError("the connection was lost")
        real_verify(document)

    monkeypatch.setattr(replays.verification, "verify_document", refused_twice)
    tournaments.cli.run_to_end(tournament, Console(file=io.StringIO()), timeout_s=60)
    tournament.refresh_from_db()
    assert len(refusals) == 2 and tournament.state == "finished"
