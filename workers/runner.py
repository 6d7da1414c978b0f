"""The match runner: claim, play, verify by re-simulation, record in one transaction (ARCHITECTURE §4-§6).

`run_match(match_id)` is what both the Celery task and the embedded pool call. It is safe to run any number of
times, concurrently: the claim and the result are compare-and-set updates, and the replay is one per match.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import traceback
import uuid
from typing import Any

from engine import load_game
from replays import format as replay_format
from replays.progress import MatchProgress, save_progress
from replays.verify import ReplayMismatch, verify_document
from tournaments.formats.round_robin import derive_seed
from tournaments.models import Match, Seat
from tournaments.services import ResultRefused, claim_match, fail_match, record_result
from workers.play import play_game
from workers.seats import Clock, InProcessSeat, SeatPlayer

logger = logging.getLogger(__name__)


class PermanentFailure(Exception):
    """An infrastructure failure that no retry can fix, such as an uploaded bot with no sandbox available."""


def runner_id() -> str:
    """Who holds a lease: host and pid for people, plus a nonce so each claim is told apart from the last."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def run_match(match_id: int) -> str:
    """Run one match to a recorded result; return what happened ("finished", "requeued", "already finished"...)."""
    owner = runner_id()
    if not claim_match(match_id, owner):
        return _not_claimed(match_id)
    match = Match.objects.get(pk=match_id)
    seats = list(match.seats.select_related("bot_version__bot").order_by("number"))
    try:
        document, logs = play_match(match, seats)
        document["footer"]["digest"] = verify_document(document)["digest"]
    except PermanentFailure as exc:
        return fail_match(match_id, owner, f"{type(exc).__name__}: {exc}", permanent=True)
    except ReplayMismatch as exc:
        return fail_match(match_id, owner, f"replay verification failed: {exc}")
    except Exception as exc:  # anything that is not a bot fault is the infrastructure's: retry, never rate
        logger.exception("match %s failed", match_id)
        return fail_match(match_id, owner, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}")
    try:
        record_result(match_id, owner, document, logs)
    except ResultRefused as exc:
        return f"result refused: {exc}"
    except Exception as exc:  # a broken invariant, a deadlock, a locked SQLite file: the whole write rolled back
        logger.exception("recording match %s failed", match_id)
        return fail_match(match_id, owner, f"recording the result failed: {type(exc).__name__}: {exc}")
    MatchProgress.objects.filter(match_id=match_id).delete()  # the replay has every action now
    return "finished"


def _not_claimed(match_id: int) -> str:
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    if status is None:
        return "missing"
    if status == Match.Status.FINISHED:
        return "already finished"
    return f"not claimed: {status}"


def play_match(match: Match, seats: list[Seat]) -> tuple[dict[str, Any], list[str]]:
    """Play the match with one player per seat; return the replay document (not yet verified) and seat logs."""
    if [seat.number for seat in seats] != list(range(match.num_players)):
        numbers = [s.number for s in seats]
        raise PermanentFailure(f"match {match.pk} has seats {numbers}, not 0..{match.num_players - 1}")
    game = load_game(match.game)
    options = game.validate_options(match.options)
    clock = Clock(move_ms=match.move_ms, bank_ms=match.bank_ms)
    players: list[SeatPlayer] = []
    try:
        for seat in seats:
            players.append(make_seat_player(match, seat))
        result = play_game(match.game, match.num_players, match.seed, options, players, clock, match.max_faults,
                           on_action=ProgressRecorder(match))
    finally:
        for player in players:
            _close(player)
    header = replay_format.make_header(
        game=game.name, rules_version=game.rules_version, options=options, seed=match.seed,
        clock=clock.to_dict(), seats=[_seat_header(seat) for seat in seats], match_id=match.pk,
    )
    assert result.outcome is not None
    footer = replay_format.make_footer(result.outcome.to_dict(), result.faults, result.forfeited)
    # Seat logs go to the seats, for their owners only, never into the public replay.
    return {"header": header, "actions": result.actions, "footer": footer}, result.logs


class ProgressRecorder:
    """Writes the action log so far to MatchProgress at most every `interval` seconds, for live feeds."""

    def __init__(self, match: Match, interval: float = 0.25) -> None:
        self.match_id, self.attempt, self.interval = match.pk, match.attempts, interval
        self.last = time.monotonic()
        save_progress(self.match_id, self.attempt, [])  # a retried match starts its feed afresh

    def __call__(self, actions: list[dict[str, Any]]) -> None:
        if time.monotonic() - self.last >= self.interval:
            save_progress(self.match_id, self.attempt, actions)
            self.last = time.monotonic()


def _seat_header(seat: Seat) -> dict[str, Any]:
    version = seat.bot_version
    return {"bot_version": version.pk, "bot": version.bot.name, "owner": str(version.bot.owner_id),
            "version": version.number, "sha256": version.sha256, "builtin": version.builtin}


def make_seat_player(match: Match, seat: Seat) -> SeatPlayer:
    """Built-ins play in-process; uploaded versions only ever in the sandbox (ARCHITECTURE §4)."""
    version = seat.bot_version
    if version.builtin:
        return InProcessSeat(version.builtin, match.game, derive_seed(match.seed, seat.number, version.pk))
    try:
        from workers.sandbox import make_sandboxed_seat
    except ImportError as exc:
        raise PermanentFailure(
            f"bot version {version.pk} ({version.label}) is an upload and must run sandboxed, "
            f"but workers.sandbox.make_sandboxed_seat is not available: {exc}"
        ) from exc
    player: SeatPlayer = make_sandboxed_seat(version, seat.number, match)
    return player


def _close(player: SeatPlayer) -> None:
    # A match that raised midway never reached finish(); sandboxed players must still stop their processes.
    close = getattr(player, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            logger.exception("closing a seat player failed")
