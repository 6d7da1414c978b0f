"""The match runner: claim, play, record in one transaction, then verify by re-simulation off the match's path
(docs/architecture.md#bots-the-wire-protocol-and-the-sandbox, docs/architecture.md#replays).

`run_match(match_id)` is what both the Celery task and the embedded pool call. It is safe to run any number of
times, concurrently: the claim and the result are compare-and-set updates, and the replay is one per match.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection

from engine import State, load_game
from replays import format as replay_format
from replays import live
from replays.progress import is_watched, save_progress
from replays.store import drop_progress, placed_store
from replays.verify import Digest, ReplayMismatch, branch_start
from replays.version_test_measures import advance_after
from tournaments import dispatch
from tournaments.dberrors import describe, is_connection_lost
from tournaments.formats.round_robin import derive_seed
from tournaments.models import Match, Seat
from tournaments.services import (
    ResultRefused,
    claim_and_read,
    decline_match,
    fail_match,
    loaded_match,
    record_result,
    renew_lease,
)
from workers import health, metrics
from workers.play import PlayResult, Start, play_game
from workers.sandbox import pinning
from workers.sandbox_settings import make_sandboxed_seat
from workers.seats import Clock, InProcessSeat, SeatPlayer, SeatWrapper

logger = logging.getLogger(__name__)


DB_REFUSED = "the database refused the result: "  # a match's error, then the server's reason


class PermanentFailure(Exception):
    """An infrastructure failure that no retry can fix, such as an uploaded bot with no sandbox available."""


def runner_id() -> str:
    """Who holds a lease: host and pid for people, plus a nonce so each claim is told apart from the last."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def run_match(match_id: int) -> str:
    """Run one match to a recorded result; return what happened ("finished", "requeued", "already finished"...).

    Raises DatabaseError when the database stays unreachable: the task retries it later (the message is not lost).
    """
    owner, worker = runner_id(), _worker()
    timings = Timings()
    rows = timings.measure("claim", lambda: with_db_retry(lambda: claim_and_read(match_id, owner, worker)))
    if not rows:
        if worker and with_db_retry(lambda: decline_match(match_id, worker)):
            return "declined: this worker failed it a moment ago; left for another"
        return with_db_retry(lambda: _not_claimed(match_id))
    heartbeat = Heartbeat(match_id, owner)
    heartbeat.start()
    try:
        outcome, cause = _run_claimed(match_id, owner, heartbeat, timings, rows)
    finally:
        heartbeat.stop()
    logger.info("match %s %s; timings %s", match_id, outcome, json.dumps(timings.ms))
    metrics.observe_run(outcome, timings.ms)
    # A Celery worker's breaker (the embedded runner has one machine and no queue to step back from); a database that
    # refuses results is no fault of this worker's host, and stopping every worker would not cure it.
    if health.NODE and not cause.startswith(DB_REFUSED):
        health.after_run(outcome, cause)
    _advance_version_test(match_id, outcome)
    return outcome


def _advance_version_test(match_id: int, outcome: str) -> None:
    """A version test's next batch as soon as its last game ends (docs/version-tests.md); beat's task is the net."""
    try:
        advance_after(match_id, outcome)
    except Exception:
        logger.exception("advancing the version test of match %s failed; beat's task will retry", match_id)


def _run_claimed(match_id: int, owner: str, heartbeat: Heartbeat, timings: Timings,
                 rows: list[tuple[Any, ...]]) -> tuple[str, str]:
    """Play and record, then send the replay's verification; return the outcome and, for an infrastructure failure,
    its cause. rows: the claim's (the match with its seats, read in the same statement)."""
    try:
        match, seats = timings.measure("load", lambda: loaded_match(rows))
        document, logs = play_match(match, seats, timings, heartbeat)
    except LeaseLost as exc:
        return f"lease lost: {exc}", ""
    except PermanentFailure as exc:
        return _fail(match_id, owner, f"{type(exc).__name__}: {exc}", permanent=True)
    except Exception as exc:  # anything that is not a bot fault is the infrastructure's: retry, never rate
        logger.exception("match %s failed", match_id)
        return _fail(match_id, owner, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}")
    try:
        # Safe to retry: the result is a compare-and-set in one transaction, so a retry after a commit whose
        # acknowledgement was lost is refused rather than written twice.
        # The replay's file is written first, out of the result's transaction; store inserts the row pointing at it
        # (and drops the live progress) inside that transaction. A match that failed before may have a replay whose
        # result was reverted: store replaces it.
        store = timings.measure("store", lambda: placed_store(document, replaces=bool(match.error)))
        timings.measure("record", lambda: with_db_retry(
            lambda: record_result(match_id, owner, document, logs, seats, store=store)))
    except ResultRefused as exc:
        return f"result refused: {exc}", ""
    except (OperationalError, InterfaceError) as exc:
        if is_connection_lost(exc):
            raise  # the database is gone: the task retries; the lease runs out and the reaper requeues the match
        # The server refused the write (a full disk, a statement timeout): the match's error names it.
        logger.error("recording match %s failed: the database refused it (%s)", match_id, describe(exc))
        return _fail(match_id, owner, DB_REFUSED + describe(exc))
    except Exception as exc:  # a broken invariant, a deadlock, a locked SQLite file: the whole write rolled back
        logger.exception("recording match %s failed", match_id)
        return _fail(match_id, owner, f"recording the result failed: {type(exc).__name__}: {exc}")
    timings.measure("verify", lambda: send_verification(match_id))
    return "finished", ""


def send_verification(match_id: int) -> None:
    """Verify the recorded match's replay by re-simulation, off the match's path (docs/architecture.md#replays),
    through the dispatch seam (workers/dispatch.py). A message that is not sent, or lost, is beat's sweep's
    (replays/verification.py)."""
    try:
        dispatch.runner().send_verification(match_id)
    except Exception:
        logger.warning("sending the verification of match %s failed; beat's sweep verifies it", match_id,
                       exc_info=True)


def _fail(match_id: int, owner: str, cause: str, permanent: bool = False) -> tuple[str, str]:
    node = _worker()
    return with_db_retry(lambda: fail_match(match_id, owner, cause, permanent=permanent, failed_by=node,
                                            ended=drop_progress)), cause


def _worker() -> str:
    """This Celery worker's node, which failures are booked to (a retry avoids it); "" outside a Celery worker (the
    embedded runner's pool child retries a requeued match itself; tools and tests run matches in-process)."""
    return health.NODE


T = TypeVar("T")
DB_RETRIES = 4


def with_db_retry(operation: Callable[[], T]) -> T:
    """Run a database operation; when the connection breaks (a restarted or cut server), reconnect and run it again.
    A statement the server refused (a full disk, a statement timeout) is raised at once (tournaments/dberrors.py).

    Only for operations that are safe to repeat, which every match service is: they are compare-and-set updates.
    """
    for attempt in range(DB_RETRIES):  # not tenacity: the give-up rule reads the connection, and a loop says it plainer
        try:
            return operation()
        except (OperationalError, InterfaceError) as exc:
            if attempt == DB_RETRIES - 1 or connection.in_atomic_block or not is_connection_lost(exc):
                raise
            logger.warning("database connection lost; reconnecting (attempt %s)", attempt + 2, exc_info=True)
            connection.close()
            time.sleep(0.2 * (attempt + 1))  # a brief back-off before reconnecting to a restarting server
    raise AssertionError("unreachable")


class Timings:
    """Milliseconds per phase of one match, logged by run_match: claim (with the read of the match and its seats,
    in the same statement on PostgreSQL), load (making their objects), spawn (making the seat players), play (the
    whole game, including start and finish: the seats' processes starting and stopping; the footer's digest is made
    as it goes), digest (the final view's), store (writing the replay's file), record, verify (handing the replay's
    verification to the sender thread, workers/sender.py: the send and the re-simulation come after the match).
    """

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._lock = threading.Lock()  # the seats stop together, each in a thread of its own

    def measure(self, phase: str, operation: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return operation()
        finally:
            with self._lock:
                self.ms[phase] = round(self.ms.get(phase, 0.0) + (time.perf_counter() - start) * 1000, 2)


class LeaseLost(Exception):
    """The reaper gave this runner's match to another (its heartbeats stopped for longer than the lease)."""


class Heartbeat:
    """A thread that renews the runner's lease every LUDUS_HEARTBEAT_SECONDS while the match is held.

    A stopped or frozen worker stops renewing, so its lease expires and the reaper hands the match on. Once a renewal
    finds the match gone, `check()` raises LeaseLost in the play loop so the stale runner stops early.
    """

    def __init__(self, match_id: int, owner: str) -> None:
        self.match_id, self.owner = match_id, owner
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{match_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def check(self) -> None:
        if self.lost:
            raise LeaseLost(f"match {self.match_id} is no longer held by {self.owner}")

    def _beat(self) -> None:
        try:
            while not self._stop.wait(settings.LUDUS_HEARTBEAT_SECONDS):
                try:
                    if not renew_lease(self.match_id, self.owner):
                        self.lost = True
                        return
                except DatabaseError:  # the next beat reconnects; the lease has room for a few missed beats
                    logger.warning("renewing the lease of match %s failed", self.match_id, exc_info=True)
                    connection.close()
        finally:
            connection.close()  # this thread's own connection


def _not_claimed(match_id: int) -> str:
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    if status is None:
        return "missing"
    if status == Match.Status.FINISHED:
        return "already finished"
    return f"not claimed: {status}"


def play_match(
    match: Match, seats: list[Seat], timings: Timings | None = None, heartbeat: Heartbeat | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Play the match with one player per seat; return the replay document (not yet verified; its footer's digest
    made from the game as played) and seat logs."""
    timings = timings or Timings()
    if [seat.number for seat in seats] != list(range(match.num_players)):
        numbers = [s.number for s in seats]
        raise PermanentFailure(f"match {match.pk} has seats {numbers}, not 0..{match.num_players - 1}")
    game = load_game(match.game)
    options = game.validate_options(match.options)
    clock = Clock(move_ms=match.move_ms, bank_ms=match.bank_ms)
    players: list[SeatPlayer] = []
    # A sandboxed match on one CPU, its seats spawned there: no hand-over between the runner and a bot is then a
    # cross-CPU wake-up (workers/sandbox/pinning.py). Built-ins alone hand nothing over, and pinned could not leave a
    # busy CPU.
    pinned = settings.LUDUS_PIN_MATCHES and not all(seat.bot_version.builtin for seat in seats)
    # While every CPU is leased the match waits for one (docs/operations.md, "One CPU a match"), its lease renewed.
    with pinning.one_cpu(pinned, check=heartbeat.check if heartbeat else None):
        try:
            with_timing = timings.measure
            with_timing("spawn", lambda: players.extend(TimedSeat(make_seat_player(match, seat), timings)
                                                        for seat in seats))
            recorder = ProgressRecorder(match, heartbeat=heartbeat, owner=heartbeat.owner if heartbeat else "")
            digest = Digest()
            start = branch_of(match, match_header(match, seats, options, clock), players, digest) or Start(
                game.new_state(match.num_players, match.seed, options), [])
            played = Start(DigestingState(start.state, digest), start.prefix)  # type: ignore[arg-type]
            result = with_timing("play", lambda: play_game(match.game, match.num_players, match.seed, options,
                                                           players, clock, match.max_faults, on_action=recorder,
                                                           start=played))
        finally:
            for player in players:
                _close(player)
    document = replay_document(match, seats, options, clock, result)
    document["footer"]["digest"] = timings.measure("digest", lambda: digest.of_final(start.state))
    # Seat logs go to the seats, for their owners only, never into the public replay.
    return document, result.logs


class DigestingState:
    """The match's state as the game loop plays it, each step's events added to the footer's digest as they come:
    the re-simulation after the match must reproduce them (play_game hands back no events). Everything else is the
    state's own; a clone is the state's, not wrapped."""

    def __init__(self, state: State, digest: Digest) -> None:
        self._played, self._digest = state, digest
        # What the game loop calls at every decision, bound once: through __getattr__ each call cost 0.5 µs more.
        self.decision, self.view, self.seat_patch = state.decision, state.view, state.seat_patch

    def choose(self, index: int) -> list[Any]:
        events = self._played.choose(index)
        self._digest.add(events)
        return events

    def __getattr__(self, name: str) -> Any:
        return getattr(self._played, name)


def replay_document(match: Match, seats: list[Seat], options: dict[str, Any], clock: Clock,
                    result: PlayResult) -> dict[str, Any]:
    """The replay document of a played match (not yet verified): header, action log, footer."""
    assert result.outcome is not None
    footer = replay_format.make_footer(result.outcome.to_dict(), result.faults, result.forfeited)
    return {"header": match_header(match, seats, options, clock), "actions": result.actions, "footer": footer}


def match_header(match: Match, seats: list[Seat], options: dict[str, Any], clock: Clock) -> dict[str, Any]:
    """The replay header of the match (the one every reader rebuilds its game from): a branch's carries its branch
    point."""
    return live.match_header(match, [_seat_header(seat) for seat in seats], options, clock.to_dict())


def branch_of(match: Match, header: dict[str, Any], players: list[SeatPlayer],
              digest: Digest | None = None) -> Start | None:
    """Where a branch's bots take over (None for a match that is no branch); digest takes the prefix's events."""
    if match.parent_id is None:
        return None
    try:
        return start_branch(header, match.branch_prefix, players, digest)
    except ReplayMismatch as exc:  # the stored prefix no longer replays: no retry can fix that
        raise PermanentFailure(f"branch {match.pk} cannot reach its branch point: {exc}") from exc


def start_branch(header: dict[str, Any], prefix: list[dict[str, Any]], players: Sequence[SeatPlayer],
                 digest: Digest | None = None) -> Start:
    """The prefix replayed (and resampled) from the header's start. Built-in bots are walked through every prefix
    step of their seat first, a forced one too, and told what was played there, so their seeded tie-breaks and
    memory stand where the parent's did: a branch that changes nothing, or forces the move that was played, plays on
    exactly as the parent did (docs/branches.md#what-a-branch-is)."""

    def catch_up(index: int, state: Any, decision: Any) -> None:
        player = players[decision.seat]
        if not player.has_process:
            player.catch_up(state.view(decision.seat) if player.needs_view else None, decision, prefix[index]["choice"])

    return Start(branch_start(header, prefix, catch_up, digest), list(prefix))


class TimedSeat(SeatWrapper):
    """A seat player whose start-up (the sandbox's process starting) and shut-down count in the match's timings.

    `play` includes both; the game itself is play - start - finish.
    """

    def __init__(self, player: SeatPlayer, timings: Timings) -> None:
        super().__init__(player)
        self._timings = timings

    def start(self, hello: dict[str, Any]) -> None:
        self._timings.measure("start", lambda: self.inner.start(hello))

    def finish(self, outcome: dict[str, Any]) -> None:
        self._timings.measure("finish", lambda: self.inner.finish(outcome))


class ProgressRecorder:
    """Writes the action log so far to MatchProgress at most every `interval` seconds, for live feeds, while
    somebody watches (replays.progress.is_watched: a cache read); only while `owner` holds the match's lease (a
    thawed zombie writes nothing).

    A match shorter than the interval, or that nobody follows, writes nothing (a feed shows a running match without
    a row as no actions yet); the replay is the record once it ends. Each write costs a round trip or two, and at
    0.25 s they took a tenth of a built-in match.
    """

    def __init__(self, match: Match, interval: float = 1.0, heartbeat: Heartbeat | None = None,
                 owner: str = "") -> None:
        self.match_id, self.attempt, self.interval, self.owner = match.pk, match.attempts, interval, owner
        self.heartbeat = heartbeat
        self.last = time.monotonic()
        if self.attempt > 1:
            self._save([])  # a retried match starts its feed afresh (a first attempt has no earlier progress)

    def __call__(self, actions: list[dict[str, Any]]) -> None:
        if self.heartbeat is not None:
            self.heartbeat.check()
        if time.monotonic() - self.last >= self.interval:
            if is_watched(self.match_id):
                self._save(actions)
            self.last = time.monotonic()

    def _save(self, actions: list[dict[str, Any]]) -> None:
        # The live feed is a convenience: a cut database connection must not cost the match (the next save
        # reconnects, and the result is written with retries).
        try:
            save_progress(self.match_id, self.attempt, actions, self.owner or None)
        except DatabaseError:
            logger.warning("saving the progress of match %s failed", self.match_id, exc_info=True)
            if not connection.in_atomic_block:
                connection.close()


def _seat_header(seat: Seat) -> dict[str, Any]:
    version = seat.bot_version
    return {"bot_version": version.pk, "bot": version.bot.name, "owner": str(version.bot.owner_id),
            "version": version.number, "sha256": version.sha256, "builtin": version.builtin}


def make_seat_player(match: Match, seat: Seat) -> SeatPlayer:
    """Built-ins play in-process; uploaded versions only ever in the sandbox
    (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox)."""
    version = seat.bot_version
    if version.builtin:
        return InProcessSeat(version.builtin, match.game, derive_seed(match.seed, seat.number, version.pk))
    return make_sandboxed_seat(version, match.pk)


def _close(player: SeatPlayer) -> None:
    # A match that raised midway never reached finish(); sandboxed players must still stop their processes.
    try:
        player.close()
    except Exception:
        logger.exception("closing a seat player failed")
