"""Validating a new bot version: one smoke match in the real sandbox against the built-in bots
(docs/architecture.md#data-model).

`validate_version(version_id)` is what the Celery task `workers.validate_version` and the embedded pool call:
- it claims the version by a compare-and-set update, pending → validating (or takes over a claim older than the
  validation lease, left by a worker that died), so any number of deliveries validate it once;
- it plays one game with the upload at seat 0 in the sandbox, the same `make_sandboxed_seat` and protocol as every
  match, against in-process built-in bots;
- it writes `active` when the bot played the whole game without forfeiting, with at most
  LUDUS_VALIDATION_MAX_FAULTS faults and without being caught computing off its turn, else `rejected`. Either
  way the validation log says why: the result, every fault with its step, code and detail (and the viewer link to
  it), and the bot's captured stderr;
- it keeps the smoke match, in the transaction that writes the verdict, like a try-out: an unrated finished Match
  with its seats and its verified replay in the system's paused "validation <game>" ladder, never rated, never
  scheduled. The version page and the log link its viewer; tournaments.visibility says who may open what.
An infrastructure failure (the sandbox cannot start on this host) is not the bot's fault: the version goes back to
`pending` and `ValidationUnavailable` is raised so the caller can retry.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from engine import InvalidOptions, load_game
from engine.core import Decision
from replays.links import viewer_url
from replays.models import Replay
from replays.verify import verify_document
from tournaments.builtins import ensure_builtin
from tournaments.dispatch import RunnerUnavailable
from tournaments.models import BotVersion, Ladder, Match, Seat
from tournaments.new_matches import create_match
from tournaments.ratings import update_rows
from tournaments.services import SEAT_RESULT_FIELDS, apply_outcome
from tournaments.system_ladders import VALIDATION_LADDER, system_ladder
from workers.artifacts import build_version
from workers.play import PlayResult, play_game
from workers.runner import replay_document
from workers.sandbox import pinning
from workers.sandbox.freezer import WATCH_MS
from workers.sandbox_settings import make_sandboxed_seat
from workers.seats import Clock, InProcessSeat, Reply, SeatDied, SeatPlayer, SeatWrapper, waiting

logger = logging.getLogger(__name__)

Status = BotVersion.Status
CANDIDATE_SEAT = 0
OPPONENTS = ("greedy", "random")
SMOKE_PLAYERS = 3  # clamped to the game's range


class ValidationUnavailable(RunnerUnavailable):
    """The smoke match could not run for a reason that is not the bot's (the sandbox, the host): retry later."""


# --- the recording seat ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FaultNote:
    step: int  # numbered as everywhere (replays.links): the first decision is step 1, the bot's seq
    kind: str  # the decision kind, e.g. "feed"
    code: str  # timeout, bad_json, stale_seq, out_of_range, too_long, bad_shape, died, oom, off_turn
    detail: str

    def line(self) -> str:
        return f"  step {self.step} ({self.kind}): {self.code}" + (f": {self.detail}" if self.detail else "")

    def link(self, match_id: int) -> str:
        return f"    {viewer_url(match_id, self.step, CANDIDATE_SEAT)}"


class RecordingSeat(SeatWrapper):
    """A SeatPlayer wrapper that keeps each fault's detail, which the action log reduces to a code."""

    def __init__(self, inner: SeatPlayer) -> None:
        super().__init__(inner)
        self.faults: list[FaultNote] = []
        self.decisions = 0
        self.start_failure = ""

    def start(self, hello: dict[str, Any]) -> None:
        try:
            self.inner.start(hello)
        except SeatDied as exc:
            self.start_failure = str(exc) or "the bot died at start"
            raise

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        self.decisions += 1
        try:
            reply = self.inner.decide(seq, view, decision, bank_ms)
        except SeatDied as exc:
            self.faults.append(FaultNote(seq, decision.kind, exc.code, str(exc)))
            raise
        if reply.fault:
            self.faults.append(FaultNote(seq, decision.kind, reply.fault, reply.detail))
        elif not 0 <= reply.choice < len(decision.options):
            detail = f"choice {reply.choice} of {len(decision.options)} options"
            self.faults.append(FaultNote(seq, decision.kind, "out_of_range", detail))
        self._look_after_reply()
        return reply

    def _look_after_reply(self) -> None:
        """The smoke match's opponents are built-ins that move in microseconds, so a bot computing after its reply
        (threads, children, kernel calls) would seldom be looked at before its next decide, and the freezer would not
        catch it here as it does in a match against a bot: every reply is followed by one look period off its turn,
        as a real opponent's move gives (docs/bots.md, "The freezer")."""
        time.sleep(WATCH_MS / 1000)  # time off its turn, in which the CPU counter is looked at; not a wait for a result
        for seat in list(waiting()):  # the candidate, when it waits unfrozen after its reply
            seat.check_waiting()

    @property
    def caught(self) -> str:
        """What the freezer caught the bot at, computing off its turn ("" when it never did)."""
        return str(getattr(self.inner, "caught", ""))


# --- the smoke match ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmokeMatch:
    """What a version is validated with: derived from the version and the server's secret, so a rerun plays the same
    game and no author can predict it."""

    game: str
    players: int
    seed: int
    opponents: tuple[str, ...]
    clock: Clock
    max_faults: int

    def describe(self) -> str:
        return (f"Smoke match: {self.game}, {self.players} players, seed {self.seed}, clock {self.clock.move_ms} ms "
                f"per move + {self.clock.bank_ms} ms bank; your bot at seat {CANDIDATE_SEAT} against "
                f"{', '.join(self.opponents)} (built-in).")


def smoke_match_for(version: BotVersion) -> SmokeMatch:
    """Raises InvalidOptions when the bot's game is unknown."""
    game = load_game(version.bot.game)
    players = max(game.min_players, min(SMOKE_PLAYERS, game.max_players))
    opponents = tuple(OPPONENTS[i % len(OPPONENTS)] for i in range(players - 1))
    clock = Clock(move_ms=settings.LUDUS_MOVE_MS, bank_ms=settings.LUDUS_BANK_MS)
    return SmokeMatch(game=game.name, players=players, seed=smoke_seed(version),
                      opponents=opponents, clock=clock, max_faults=settings.LUDUS_MAX_FAULTS)


def smoke_seed(version: BotVersion) -> int:
    """The smoke match's seed: keyed by the server's SECRET_KEY, so that no one can compute it from the upload and
    write a bot that behaves only in the game it is validated with. Stable per version, so a rerun plays the same."""
    key = settings.SECRET_KEY.encode()
    digest = hmac.new(key, f"ludus-validation:{version.pk}:{version.sha256}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 2  # 62 bits, as wide as every other seed: none can be searched


def play_smoke_match(version: BotVersion, spec: SmokeMatch) -> tuple[PlayResult, RecordingSeat]:
    """Play it; bot faults end up in the result, anything raised is the infrastructure's."""
    # Pinned as the runner pins a match: the seat reads its CPU affinity, and must not tell the two apart by it.
    with pinning.one_cpu(settings.LUDUS_PIN_MATCHES):
        candidate = RecordingSeat(make_sandboxed_seat(version, None))
        players: list[SeatPlayer] = [candidate]
        players += [InProcessSeat(name, spec.game, spec.seed + i + 1) for i, name in enumerate(spec.opponents)]
        try:
            result = play_game(spec.game, spec.players, spec.seed, {}, players, spec.clock, spec.max_faults)
        finally:
            candidate.close()
    return result, candidate


@dataclass(frozen=True)
class Verdict:
    status: str
    log: str


def judge(spec: SmokeMatch, result: PlayResult, seat: RecordingSeat, allowed_faults: int, match_id: int) -> Verdict:
    """active or rejected, and the log the author reads, with viewer links into the kept match."""
    assert result.outcome is not None
    faults = result.faults[CANDIDATE_SEAT]
    forfeited = result.forfeited[CANDIDATE_SEAT]
    lines = [spec.describe(),
             f"Result: rank {result.outcome.ranks[CANDIDATE_SEAT]} of {spec.players}, score "
             f"{result.outcome.scores[CANDIDATE_SEAT]}; the bot was asked {seat.decisions} decision(s), "
             f"{faults} fault(s), {'forfeited' if forfeited else 'no forfeit'}."]
    if seat.start_failure:
        lines.append(f"The bot did not start: {seat.start_failure}")
    if seat.faults:
        lines.append("Faults (step, decision kind, code, detail; the viewer at that step):")
        lines += [line for note in seat.faults for line in (note.line(), note.link(match_id))]
    if forfeited:
        status, why = Status.REJECTED, "the bot forfeited the smoke match (it died, or faulted too often)"
    elif seat.caught:  # it would take CPU from its opponents in every match (docs/bots.md, "The freezer")
        status, why = Status.REJECTED, (
            f"the freezer caught the bot computing while another seat held the decision: it {seat.caught}. A bot "
            "may compute only on its own turn, between a decide and its reply; stop threads, children and kernel "
            'calls before you reply (docs/bots.md, "The freezer")')
    elif faults > allowed_faults:
        status, why = Status.REJECTED, f"{faults} fault(s), more than the {allowed_faults} allowed"
    else:
        status, why = Status.ACTIVE, "the bot played the whole game" + (
            f" with {faults} fault(s), within the {allowed_faults} allowed" if faults else " without a fault")
    lines.append(f"Verdict: {status}: {why}.")
    lines.append(f"Watch it: {viewer_url(match_id, view=CANDIDATE_SEAT)}")
    stderr = result.logs[CANDIDATE_SEAT] if result.logs else seat.log()
    lines += ["--- the bot's stderr ---", stderr.rstrip("\n") or "(empty)"]
    return Verdict(status=status, log="\n".join(lines) + "\n")


# --- keeping the smoke match ------------------------------------------------------------------------------------


def validation_ladder(game: str, players: int) -> Ladder:
    """The system's paused ladder of this game's validation matches, made on first use: never scheduled, never
    rated."""
    return system_ladder(VALIDATION_LADDER, game, players, "validation smoke matches only; unrated")


def keep_smoke_match(version: BotVersion, spec: SmokeMatch, result: PlayResult) -> Match:
    """The smoke match as a finished, unrated match of the validation ladder, with its seats' results and its
    verified replay, the document the runner writes (call it in the verdict's transaction)."""
    table = [version, *(ensure_builtin(name) for name in spec.opponents)]
    now = timezone.now()
    match = create_match(validation_ladder(spec.game, spec.players), table, spec.seed, rated=False, options={},
                         move_ms=spec.clock.move_ms, bank_ms=spec.clock.bank_ms, max_faults=spec.max_faults,
                         status=Match.Status.FINISHED, attempts=1, started_at=now, finished_at=now)
    seats = list(match.seats.select_related("bot_version__bot").order_by("number"))
    document = replay_document(match, seats, load_game(spec.game).validate_options({}), spec.clock, result)
    document["footer"]["digest"] = verify_document(document)["digest"]
    apply_outcome(match, seats, document, result.logs)
    update_rows(Seat, seats, SEAT_RESULT_FIELDS)
    Replay.from_document(match, document).save()
    return match


# --- claiming and recording --------------------------------------------------------------------------------------


def lease() -> timedelta:
    return timedelta(seconds=settings.LUDUS_VALIDATION_LEASE_SECONDS)


def claim_version(version_id: int, now: datetime | None = None) -> datetime | None:
    """pending → validating (or a stale validating claim taken over); the claim's time, or None if not claimed."""
    now = now or timezone.now()
    claimable = Q(status=Status.PENDING) | Q(status=Status.VALIDATING, validating_since__lt=now - lease())
    claimed = BotVersion.objects.filter(claimable, pk=version_id, builtin="").update(
        status=Status.VALIDATING, validating_since=now
    )
    return now if claimed == 1 else None


def record_verdict(version_id: int, claimed_at: datetime, verdict: Verdict) -> bool:
    """validating → active or rejected, only for the claim we hold."""
    return BotVersion.objects.filter(pk=version_id, status=Status.VALIDATING, validating_since=claimed_at).update(
        status=verdict.status, validation_log=verdict.log, validating_since=None
    ) == 1


def release_claim(version_id: int, claimed_at: datetime, cause: str) -> bool:
    """validating → pending, for a retry: the infrastructure failed, not the bot."""
    log = f"Validation could not run (an infrastructure problem, not your bot's); it will be retried.\n{cause}\n"
    return BotVersion.objects.filter(pk=version_id, status=Status.VALIDATING, validating_since=claimed_at).update(
        status=Status.PENDING, validation_log=log, validating_since=None
    ) == 1


def validate_version(version_id: int) -> str:
    """Validate one version; return what happened ("active", "rejected", "already active"...).

    Raises ValidationUnavailable when the sandbox itself failed; the version is then pending again.
    """
    claimed_at = claim_version(version_id)
    if claimed_at is None:
        status = BotVersion.objects.filter(pk=version_id).values_list("status", flat=True).first()
        return "missing" if status is None else f"already {status}"
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    try:
        spec = smoke_match_for(version)
    except InvalidOptions as exc:
        record_verdict(version_id, claimed_at, Verdict(Status.REJECTED, f"Verdict: rejected: {exc}.\n"))
        return Status.REJECTED
    try:
        built = build_version(version)
        if not built.ok:
            verdict = Verdict(Status.REJECTED, built.log + "Verdict: rejected: the bot did not build, so it was not "
                              "run. Fix the build and upload again.\n")
            record_verdict(version_id, claimed_at, verdict)
            return Status.REJECTED
        result, seat = play_smoke_match(version, spec)
        with transaction.atomic():  # the verdict and the kept match, or neither
            match = keep_smoke_match(version, spec, result)
            verdict = judge(spec, result, seat, settings.LUDUS_VALIDATION_MAX_FAULTS, match.pk)
            verdict = Verdict(verdict.status, built.log + verdict.log)
            if not record_verdict(version_id, claimed_at, verdict):
                transaction.set_rollback(True)
                return "claim lost"
    except Exception as exc:  # the bot's failures are faults inside the result; anything raised is ours
        logger.exception("validating bot version %s failed", version_id)
        release_claim(version_id, claimed_at, f"{type(exc).__name__}: {exc}")
        raise ValidationUnavailable(f"bot version {version_id}: {type(exc).__name__}: {exc}\n"
                                    f"{traceback.format_exc(limit=6)}") from exc
    return verdict.status


def run_embedded(version_id: int) -> str:
    """The embedded pool's entry point: an infrastructure failure leaves the version pending for the sweeper."""
    try:
        return validate_version(version_id)
    except ValidationUnavailable as exc:
        return f"pending: {exc}"


def stale_versions(now: datetime | None = None) -> list[int]:
    """Versions whose validation was lost: pending for longer than the lease, or a claim older than the lease."""
    cutoff = (now or timezone.now()) - lease()
    stale = BotVersion.objects.filter(builtin="").filter(
        Q(status=Status.PENDING, created_at__lt=cutoff) | Q(status=Status.VALIDATING, validating_since__lt=cutoff)
    )
    return list(stale.order_by("pk").values_list("pk", flat=True))
