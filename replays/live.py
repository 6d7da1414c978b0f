"""Where the viewer gets a match's actions: the stored replay once finished, the runner's progress while running.

Frames and the event log are derived from them by re-simulation (replays.frames, replays.verify), so a live match
and its replay look the same in the viewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import load_game
from replays import format as replay_format
from replays.models import Replay
from replays.progress import live_actions
from replays.verify import Resimulation
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
    game = load_game(match.game)
    seats = [{"bot_version": s.bot_version_id, "bot": s.bot_version.bot.name, "version": s.bot_version.number}
             for s in match.seats.select_related("bot_version__bot").order_by("number")]
    clock = {"move_ms": match.move_ms, "bank_ms": match.bank_ms}
    header = replay_format.make_header(game.name, game.rules_version, game.validate_options(match.options),
                                       match.seed, clock, seats, match.pk)
    return replay_format.with_branch(header, match.branch_point())


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
