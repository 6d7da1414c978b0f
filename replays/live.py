"""Where every reader gets a match's actions: the stored replay once finished, the runner's progress while running.

Frames, the event log and the feeds are derived from them by re-simulation (replays.frames, replays.verify), from
one header: the stored replay's, or while the match runs `match_header`, which the runner also writes. A branch's
header carries its branch point, so a resampled branch is re-dealt where the runner re-dealt it
(docs/architecture.md#replays).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import load_game
from replays import format as replay_format
from replays.models import Replay
from replays.progress import live_actions
from replays.verify import ReplayMismatch, Resimulation
from tournaments.models import Match


@dataclass
class Source:
    """The replay document so far; finished means the action log is complete and the footer is real."""

    document: dict[str, Any]
    is_finished: bool

    @property
    def steps(self) -> int:
        """How many frames there are: one before the first action, one after each action."""
        return len(self.document["actions"]) + 1


def source(match: Match) -> Source | None:
    """The match's actions so far, or None when there is nothing to show (queued, failed, no replay)."""
    replay = Replay.objects.filter(match=match).first()
    if replay is not None:
        return Source(replay.document(), True)
    if match.status != Match.Status.RUNNING:
        return None
    return Source({"header": live_header(match), "actions": live_actions(match), "footer": {}}, False)


def live_header(match: Match) -> dict[str, Any]:
    """The header the runner will write, built from the match row (what re-simulation needs)."""
    seats = [{"bot_version": s.bot_version_id, "bot": s.bot_version.bot.name, "version": s.bot_version.number}
             for s in match.seats.select_related("bot_version__bot").order_by("number")]
    return match_header(match, seats)


def match_header(match: Match, seats: list[dict[str, Any]], options: dict[str, Any] | None = None,
                 clock: dict[str, Any] | None = None) -> dict[str, Any]:
    """The replay header of the match: its game, options (complete), seed, clock, seats, and a branch's branch point
    (the parent's step, forced option and resample seed). The one header every reader rebuilds a running match's
    game from, and the one the runner writes."""
    game = load_game(match.game)
    options = game.validate_options(match.options) if options is None else options
    clock = {"move_ms": match.move_ms, "bank_ms": match.bank_ms} if clock is None else clock
    header = replay_format.make_header(game.name, game.rules_version, options, match.seed, clock, seats, match.pk)
    return replay_format.with_branch(header, match.branch_point())


def rebuilt(match: Match, header: dict[str, Any] | None = None) -> Resimulation:
    """The match's game at its start, to step its action records through: from its replay's header when given, else
    from the match row (match_header). Raises ReplayMismatch when that header starts no game."""
    return Resimulation(header or match_header(match, [{} for _ in range(match.num_players)]))


def not_replayable(match_id: int, exc: ReplayMismatch) -> str:
    """The one line a reader answers when a match's actions do not replay."""
    return f"match {match_id}'s actions do not replay: {exc}"


def event_log(document: dict[str, Any], since: int = 0) -> list[dict[str, Any]]:
    """Per step after `since`: who decided what kind of decision, how long it took, any fault, the public events."""
    sim = Resimulation(document["header"])
    log = []
    for index, record in enumerate(document["actions"]):
        decision = sim.state.decision()
        events = sim.step(index, record)
        if index + 1 > since:
            log.append({"step": index + 1, "seat": record["seat"], "ms": record.get("ms"),
                        "fault": record.get("fault"), "kind": decision.kind if decision else None, "events": events})
    return log
