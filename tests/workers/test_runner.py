"""The match runner: claim by compare-and-set, play, verify, record once; infrastructure failures retry unrated."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import IntegrityError, connection
from django.db.models.functions import Now
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from replays import format as replay_format
from replays.api.feeds import read_snapshot
from replays.models import Replay
from replays.progress import MatchProgress, is_watched, live_actions, mark_watched
from replays.store import store_replay
from replays.verification import verify_replay
from replays.verify import verify_document
from tournaments.models import Ladder, Match, Rating
from tournaments.new_matches import create_match
from tournaments.scheduling import start_tournament
from tournaments.services import (
    ResultRefused,
    claim_match,
    fail_match,
    record_result,
    requeue_expired,
    requeue_match,
)
from workers import runner
from workers.runner import ProgressRecorder, play_match, run_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(tournament: Any) -> Match:
    return start_tournament(tournament)[0]


def test_it_claims_a_queued_match_once(match: Match) -> None:
    assert claim_match(match.pk, "worker-a")
    assert not claim_match(match.pk, "worker-b")
    match.refresh_from_db()
    assert (match.status, match.lease_owner, match.attempts) == ("running", "worker-a", 1)
    assert match.lease_expires > timezone.now()


def expire_lease(match_id: int) -> None:
    """As if the lease ran out a day ago, on the database's clock (leases never read a host's clock)."""
    Match.objects.filter(pk=match_id).update(lease_expires=Now() - timedelta(days=1))


def test_it_lets_another_runner_reclaim_an_expired_lease(match: Match) -> None:
    assert claim_match(match.pk, "worker-a")
    assert not claim_match(match.pk, "worker-b")
    expire_lease(match.pk)
    assert claim_match(match.pk, "worker-b")
    match.refresh_from_db()
    assert (match.lease_owner, match.attempts) == ("worker-b", 2)


def test_it_does_not_claim_finished_or_cancelled_matches(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED, lease_expires=Now() - timedelta(days=1))
    assert not claim_match(match.pk, "worker-a")


def test_it_records_a_result_with_seats_replay_and_ratings(match: Match) -> None:
    assert run_match(match.pk) == "finished"
    match.refresh_from_db()
    assert match.status == "finished" and match.finished_at and match.error == ""
    seats = list(match.seats.order_by("number"))
    assert all(seat.rank is not None and seat.score is not None for seat in seats)
    assert all(seat.rating_mu_before == 25.0 and seat.rating_mu_after is not None for seat in seats)
    for seat in seats:  # ranked above the other seat: up; below: down; a tie between equals: unchanged
        other = seats[1 - seat.number]
        expected = (seat.rank < other.rank) - (seat.rank > other.rank)
        assert expected == (seat.rating_mu_after > 25.0) - (seat.rating_mu_after < 25.0)
    replay = Replay.objects.get(match=match)
    assert verify_document(replay.document())["ranks"] == [seat.rank for seat in seats]
    assert len(replay.footer["digest"]) == 64
    ratings = Rating.objects.filter(tournament=match.tournament, bot_version__seats__match=match)
    assert sorted(r.games for r in ratings) == [1, 1]


def test_it_refuses_a_second_result_for_the_same_match(match: Match) -> None:
    assert claim_match(match.pk, "worker-a")
    document, logs = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    record_result(match.pk, "worker-a", document, logs, store=store_replay)
    with pytest.raises(ResultRefused, match="not running"):
        record_result(match.pk, "worker-a", document, logs, store=store_replay)
    assert Replay.objects.filter(match=match).count() == 1
    assert set(Rating.objects.filter(tournament=match.tournament).values_list("games", flat=True)) <= {0, 1}


def test_it_refuses_the_result_of_a_runner_that_lost_its_lease(match: Match) -> None:
    assert claim_match(match.pk, "worker-a")
    document, logs = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    expire_lease(match.pk)
    assert claim_match(match.pk, "worker-b")
    with pytest.raises(ResultRefused):
        record_result(match.pk, "worker-a", document, logs, store=store_replay)
    assert not Replay.objects.filter(match=match).exists()


def test_it_runs_the_same_match_twice_into_one_result(match: Match) -> None:
    assert run_match(match.pk) == "finished"
    first = Replay.objects.get(match=match)
    assert run_match(match.pk) == "already finished"
    assert Replay.objects.get(match=match).pk == first.pk
    match.refresh_from_db()
    assert match.attempts == 1
    assert sorted(Rating.objects.filter(tournament=match.tournament).values_list("games", flat=True)) == [0, 0, 1, 1]


def test_it_requeues_an_infrastructure_failure_then_fails_it_unrated(match: Match, settings: Any) -> None:
    settings.LUDUS_MATCH_ATTEMPTS = 2
    assert claim_match(match.pk, "w1")
    assert fail_match(match.pk, "w1", "the disk caught fire") == "requeued"
    match.refresh_from_db()
    assert (match.status, match.error, match.rated) == ("queued", "the disk caught fire", True)
    assert claim_match(match.pk, "w2")
    assert fail_match(match.pk, "w2", "again") == "failed"
    match.refresh_from_db()
    assert (match.status, match.attempts, match.rating_seq) == ("failed", 2, None)
    assert not match.seats.filter(rating_mu_after__isnull=False).exists()


def test_the_reaper_requeues_matches_whose_lease_expired(match: Match) -> None:
    assert claim_match(match.pk, "vanished-worker")
    assert requeue_expired() == 0
    expire_lease(match.pk)
    assert requeue_expired() == 1
    match.refresh_from_db()
    assert match.status == "queued" and "vanished-worker" in match.error
    assert run_match(match.pk) == "finished"


def test_recomputed_ratings_equal_the_live_ones_and_a_changed_rating_is_named(tournament: Any) -> None:
    from django.core.management.base import CommandError

    for match in start_tournament(tournament, enqueue=False):
        assert run_match(match.pk) == "finished"
    out = io.StringIO()
    call_command("recompute_ratings", "--tournament", str(tournament.pk), stdout=out)
    assert "ratings agree with history" in out.getvalue()
    Rating.objects.filter(tournament=tournament, bot_version__bot__name="random").update(mu=99.0)
    with pytest.raises(CommandError, match="differ from their history"):
        call_command("recompute_ratings", "--check", stdout=io.StringIO())
    out = io.StringIO()
    call_command("recompute_ratings", stdout=out)  # rebuilds from history
    assert "rebuilt 1 rating(s) from history" in out.getvalue() and "random@1: live (99.0" in out.getvalue()
    call_command("recompute_ratings", "--check", stdout=io.StringIO())


def test_a_result_that_does_not_re_simulate_is_reverted_after_the_match_and_can_be_played_again(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    import workers.runner

    real_play_game = workers.runner.play_game

    def play_game_with_a_corrupted_log(*args: Any, **kwargs: Any) -> Any:
        result = real_play_game(*args, **kwargs)
        result.actions[0]["seat"] = 1 - result.actions[0]["seat"]  # as if a record went to the wrong seat
        return result

    monkeypatch.setattr(workers.runner, "play_game", play_game_with_a_corrupted_log)
    monkeypatch.setattr(workers.runner, "send_verification", lambda match_id: None)  # verified below, as a task would
    assert run_match(match.pk) == "finished"
    assert Replay.objects.get(match=match).verification == "verifying"
    assert verify_replay(match.pk) == "mismatch"
    match.refresh_from_db()
    assert match.status == "failed" and match.error.startswith("replay verification failed: action 0: recorded for")
    replay = Replay.objects.get(match=match)
    assert replay.verification == "mismatch" and replay.verify_error.startswith("action 0: recorded for")
    assert not match.seats.filter(rating_mu_after__isnull=False).exists()
    assert set(Rating.objects.filter(tournament=match.tournament).values_list("games", flat=True)) == {0}
    call_command("recompute_ratings", "--check", stdout=io.StringIO())
    monkeypatch.setattr(workers.runner, "play_game", real_play_game)
    assert requeue_match(match)
    assert run_match(match.pk) == "finished"  # the flagged replay makes way for the new one
    assert verify_replay(match.pk) == "verified"
    assert Replay.objects.get(match=match).verification == "verified"


def test_a_worker_leaves_a_match_it_just_failed_to_another_worker(match: Match) -> None:
    from tournaments.services import decline_match

    assert claim_match(match.pk, "run-1", worker="broken@host")
    assert fail_match(match.pk, "run-1", "OSError: no space left on device", failed_by="broken@host") == "requeued"
    assert not claim_match(match.pk, "run-2", worker="broken@host")
    assert decline_match(match.pk, "broken@host")
    match.refresh_from_db()
    assert (match.status, match.dispatched_at) == ("queued", None)  # back in the outbox, for the next beat
    assert not decline_match(match.pk, "healthy@host")
    assert claim_match(match.pk, "run-3", worker="healthy@host")


def test_a_worker_takes_back_a_match_it_failed_once_no_other_took_it_for_a_lease(match: Match) -> None:
    assert claim_match(match.pk, "run-1", worker="only@host")
    assert fail_match(match.pk, "run-1", "a passing fault", failed_by="only@host") == "requeued"
    Match.objects.filter(pk=match.pk).update(queued_at=Now() - timedelta(days=1))
    assert claim_match(match.pk, "run-2", worker="only@host")


def _write_statements(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]


def ladder_locks(statements: list[str]) -> list[str]:
    """The statements that lock the ladder's row: an update of it, or a read of it for update (the result's
    compare-and-set reads the rating_seq the lock has just taken, and locks nothing)."""
    return [sql for sql in statements if sql.startswith('UPDATE "tournaments_ladder"')
            or ('"tournaments_ladder"' in sql and "FOR UPDATE" in sql)]


def test_the_result_write_is_nine_statements_and_one_competition_lock(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    ladder = Ladder.objects.create(name="quick", game="tinynim", players_per_match=2)
    versions = [builtin_versions["greedy"], builtin_versions["random"]]
    played = []
    for seed in (1, 2):  # the first result creates the two ratings; the second finds them
        match = create_match(ladder, versions, seed)
        assert claim_match(match.pk, "worker-a")
        document, logs = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
        with CaptureQueriesContext(connection) as queries:
            record_result(match.pk, "worker-a", document, logs, store=store_replay)
        played.append(_write_statements(queries))
    first, second = played
    # the replay and the progress's delete: one statement; the first result creates the ratings and standings rows
    assert len(first) == 11 and len(second) == 9, second
    for statements in played:
        on_ladder = ladder_locks(statements)
        assert len(on_ladder) == 1 and on_ladder[0].startswith('UPDATE "tournaments_ladder"'), on_ladder
    ladder.refresh_from_db()
    assert ladder.rating_seq == 2
    assert list(Match.objects.filter(ladder=ladder).order_by("seed").values_list("rating_seq", flat=True)) == [1, 2]
    assert sorted(Rating.objects.filter(ladder=ladder).values_list("games", flat=True)) == [2, 2]


def test_the_stored_replay_holds_what_the_orm_would_store(match: Match) -> None:
    started = timezone.now()
    assert run_match(match.pk) == "finished"
    replay = Replay.objects.get(match=match)
    document = replay.document()
    assert replay.size == len(replay.raw_bytes()) and replay.format_version == replay_format.FORMAT_VERSION
    assert replay.raw_bytes() == replay_format.encode_actions(document["actions"])
    # the action log is in the replay store under its digest, not in the database
    assert replay.actions is None and not replay.pending and replay.digest in replay.location
    assert started <= replay.created_at <= timezone.now()
    assert document["header"]["match"] == match.pk
    assert document["footer"]["digest"] == verify_document(document)["digest"]


def test_a_second_replay_for_the_match_writes_nothing(match: Match) -> None:
    assert claim_match(match.pk, "worker-a")
    document, logs = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    document["footer"]["digest"] = verify_document(document)["digest"]
    Replay.objects.create(match=match, header=document["header"], actions=b"", footer=document["footer"])
    MatchProgress.objects.create(match=match, attempt=1, actions=[{"seat": 0, "choice": 0, "ms": 1}])
    with pytest.raises(IntegrityError):
        record_result(match.pk, "worker-a", document, logs, store=store_replay)
    match.refresh_from_db()
    assert (match.status, match.lease_owner, match.rating_seq) == ("running", "worker-a", None)
    assert MatchProgress.objects.filter(match=match).exists()  # rolled back with the rest
    assert not match.seats.filter(rank__isnull=False).exists()
    assert not Rating.objects.filter(tournament=match.tournament, games__gt=0).exists()


def test_an_unrated_result_locks_the_competition_without_numbering_it(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    ladder, match, document, logs = _unrated_match_played(builtin_versions)
    with CaptureQueriesContext(connection) as queries:
        record_result(match.pk, "worker-a", document, logs, store=store_replay)
    statements = _write_statements(queries)
    # the lock is the update that counts the finished match for the standings rows; no rating rows are locked
    on_ladder = ladder_locks(statements)
    assert len(on_ladder) == 1 and on_ladder[0].startswith('UPDATE "tournaments_ladder"'), on_ladder
    assert not [sql for sql in statements if "FOR UPDATE" in sql]
    match.refresh_from_db()
    ladder.refresh_from_db()
    assert (match.status, match.rating_seq, ladder.rating_seq) == ("finished", None, 0)
    assert not Rating.objects.filter(ladder=ladder).exists()


def test_an_unrated_result_of_a_runner_that_lost_its_lease_is_refused(
    tinynim: Any, builtin_versions: dict[str, Any]
) -> None:
    # No rating rows are read for an unrated match: the compare-and-set's own answer decides (in a pipeline on
    # PostgreSQL it must be waited for, not taken from a row count not yet known).
    _, match, document, logs = _unrated_match_played(builtin_versions)
    expire_lease(match.pk)
    assert claim_match(match.pk, "worker-b")
    with pytest.raises(ResultRefused):
        record_result(match.pk, "worker-a", document, logs, store=store_replay)
    assert not Replay.objects.filter(match=match).exists()
    assert list(match.seats.values_list("rank", flat=True)) == [None, None]
    record_result(match.pk, "worker-b", document, logs, store=store_replay)
    match.refresh_from_db()
    assert match.status == "finished" and Replay.objects.filter(match=match).exists()


def _unrated_match_played(versions: dict[str, Any]) -> tuple[Ladder, Match, dict[str, Any], list[str]]:
    """An unrated try-out match on a fresh ladder, claimed by worker-a and played: its document and logs."""
    ladder = Ladder.objects.create(name="try-outs", game="tinynim", players_per_match=2)
    match = create_match(ladder, [versions["greedy"], versions["random"]], 1, rated=False)
    assert claim_match(match.pk, "worker-a")
    document, logs = play_match(match, list(match.seats.select_related("bot_version__bot").order_by("number")))
    return ladder, match, document, logs


def test_progress_is_written_on_a_coarse_interval_and_a_retry_starts_it_afresh(match: Match) -> None:
    actions = [{"seat": 0, "choice": 0, "ms": 1}]
    first = ProgressRecorder(match)  # attempt 0 or 1: nothing earlier to reset, nothing written yet
    first(actions)  # within the interval: not written
    assert not MatchProgress.objects.filter(match=match).exists()
    first.last -= first.interval
    first(actions)
    assert MatchProgress.objects.get(match=match).actions == actions
    Match.objects.filter(pk=match.pk).update(attempts=2)
    match.refresh_from_db()
    ProgressRecorder(match)  # the retry's feed starts empty
    assert MatchProgress.objects.get(match=match).actions == []


# --- live progress only while somebody watches ---------------------------------------------------------------


@pytest.fixture
def shared_cache(settings: Any, celery_broker_url: str) -> Iterator[None]:
    """The cache on Redis, as with CACHE_URL: watch marks set by a web process reach the runner. The keys carry a
    prefix of this test process and are deleted one by one (the Redis database is never flushed)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": celery_broker_url, "KEY_PREFIX": f"test-{os.getpid()}"}}
    yield
    cache.delete_many([f"ludus:watched:{pk}" for pk in Match.objects.values_list("pk", flat=True)])


def test_progress_is_written_only_while_somebody_watches(match: Match, shared_cache: None) -> None:
    actions = [{"seat": 0, "choice": 0, "ms": 1}]
    recorder = ProgressRecorder(match, interval=0)
    recorder(actions)
    assert not is_watched(match.pk) and not MatchProgress.objects.filter(match=match).exists()
    assert live_actions(match) == []  # a viewer reads the (empty) progress: from now on the match is watched
    recorder(actions)
    assert is_watched(match.pk) and MatchProgress.objects.get(match=match).actions == actions
    cache.delete(f"ludus:watched:{match.pk}")  # the viewer left and its mark ran out
    recorder([*actions, *actions])
    assert MatchProgress.objects.get(match=match).actions == actions


def test_a_live_feed_marks_a_running_match_watched_and_a_finished_one_not(match: Match, shared_cache: None) -> None:
    read_snapshot(match.pk)  # queued: nothing to watch yet
    assert not is_watched(match.pk)
    assert claim_match(match.pk, "worker-a")
    read_snapshot(match.pk)
    assert is_watched(match.pk)


def test_without_a_shared_cache_the_runner_writes_progress_regardless(match: Match, settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert is_watched(match.pk)  # a mark set in a web process could not reach this runner


class EveryAction(ProgressRecorder):
    """The runner's recorder with no interval: every action is a chance to write."""

    def __init__(self, match: Match, interval: float = 0.0, **kwargs: Any) -> None:
        super().__init__(match, 0.0, **kwargs)


@pytest.mark.parametrize("watched", [False, True])
def test_a_match_nobody_watches_writes_no_progress(match: Match, shared_cache: None, watched: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "ProgressRecorder", EveryAction)
    if watched:
        mark_watched(match.pk)
    with CaptureQueriesContext(connection) as queries:
        assert run_match(match.pk) == "finished"
    writes = [q["sql"] for q in queries.captured_queries
              if '"replays_matchprogress"' in q["sql"] and q["sql"].startswith(("UPDATE", "INSERT"))]
    assert (len(writes) > 1) if watched else (writes == []), writes[:3]
