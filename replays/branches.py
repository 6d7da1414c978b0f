"""Branches (docs/branches.md): play a finished match on from any step, with other bots, a forced option, or a
re-dealt hidden future. The one service behind `manage.py branch`, the API and the viewer's form.

A branch is an unrated match of the system's paused "branches <game>" ladder, linked to its parent and step. It
keeps the parent's seed, options and clock, and stores the action records it replays before its bots play
(`Match.branch_prefix`); the runner plays on from there (workers/runner.py) and its replay verifies like any other
(replays/verify.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from engine import Decision
from engine.bots import bot_names, is_bot_name
from replays.models import Replay
from replays.verify import Resimulation, branch_start, kept_steps
from tournaments.builtins import ensure_builtin
from tournaments.dispatch import enqueue_matches
from tournaments.formats.round_robin import derive_match_seed
from tournaments.models import BotVersion, Match
from tournaments.new_matches import create_matches
from tournaments.numbers import is_whole
from tournaments.system_ladders import BRANCHES_LADDER, system_ladder
from tournaments.visibility import can_see_bot, is_over, is_staff, new_seed, seat_label, visible_versions

MAX_GAMES = 20  # resampled games per request: each is a whole match on the workers


class BranchRefused(ValueError):
    """A request that cannot make a branch; `field` names the input at fault (the API's 400 key)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class BranchForbidden(Exception):
    """The requester may not branch this match now (the API's 403)."""


@dataclass(frozen=True)
class BranchRequest:
    """What to branch: at step K, seats replaced (seat number counted from 1, as people read and type them ->
    built-in name or bot version id), step K forced to an option index, G games each with the hidden future re-dealt
    from a seed derived from `seed`."""

    step: int
    seats: Mapping[int, str] = field(default_factory=dict)
    force: int | None = None
    games: int = 1
    resample: bool = False
    seed: int | None = None


def create_branches(parent: Match, user: Any, request: BranchRequest) -> list[Match]:
    """Queued branches of parent (one per game), enqueued on commit. Raises BranchForbidden or BranchRefused."""
    check_may_branch(user, parent)
    replay = Replay.objects.filter(match=parent).first()
    if replay is None:  # a finished match always has one; a hand-made row may not
        raise BranchRefused("match", f"match {parent.pk} has no replay to branch from")
    document = replay.document()
    prefix = branch_prefix(document, request.step, request.force)
    versions = seat_versions(parent, user, request.seats)
    resamples = resample_seeds(request)
    check_resample(document, request, prefix, resamples[0])
    fields = {"options": parent.options, "move_ms": parent.move_ms, "bank_ms": parent.bank_ms,
              "max_faults": parent.max_faults, "parent": parent, "branch_step": request.step,
              "branch_force": request.force, "branch_prefix": prefix}
    with transaction.atomic():
        ladder = system_ladder(BRANCHES_LADDER, parent.game, parent.num_players, "branches only; unrated")
        games = [(versions, parent.seed, dict(fields, branch_resample=seed)) for seed in resamples]
        matches = create_matches(ladder, games, rated=False)
        enqueue_matches([match.pk for match in matches])
    return matches


def check_may_branch(user: Any, parent: Match) -> None:
    """Only a finished match has the replay a branch starts from. Before it is over (the other games of its set
    finished; a private bot's validation match never is), only staff may branch it: a branch plays on with the
    parent's hidden future, so it would show its deck to whoever may watch the branch."""
    if parent.status != Match.Status.FINISHED:
        raise BranchRefused("match", f"match {parent.pk} is {parent.status}: only a finished match can be branched "
                                     "(its replay is the branch's past)")
    if not is_staff(user) and not is_over(parent):
        raise BranchForbidden(f"match {parent.pk} is not over (another game dealt from its seed is still to be "
                              "played, or it is a private bot's validation match): a branch would show its hidden "
                              "future, so only staff may branch it now")


def branch_prefix(document: dict[str, Any], step: int, force: int | None) -> list[dict[str, Any]]:
    """The records a branch at `step` replays: the parent's first K steps, or its first K - 1 and the forced
    option as step K."""
    actions = document["actions"]
    last = len(actions)
    _check_resampled_parent(document["header"], step)
    if force is None:
        if not 0 <= step < last:
            raise BranchRefused("step", f"step {step} is not a step to branch from: the match has steps 0 to {last} "
                                        f"and is over after step {last}; give 0 to {last - 1}")
        return [_kept(record) for record in actions[:step]]
    if not 1 <= step <= last:
        raise BranchRefused("step", f"step {step} cannot be forced: the match's decisions are steps 1 to {last}")
    decision = decision_of_step(document, step)
    if not 0 <= force < len(decision.options):
        raise BranchRefused("force", f"option {force} is not one of the {len(decision.options)} options of step "
                                     f"{step} (seat {decision.seat + 1}'s {decision.kind}); give 0 to "
                                     f"{len(decision.options) - 1}")
    forced = {"seat": decision.seat, "choice": force, "ms": 0, "forced": True}
    return [_kept(record) for record in actions[:step - 1]] + [forced]


def decision_of_step(document: dict[str, Any], step: int) -> Decision:
    """The decision taken as step `step` (1-based): the one pending after the first step - 1 actions."""
    sim = Resimulation(document["header"])
    for index, record in enumerate(document["actions"][:step - 1]):
        sim.step(index, record)
    decision = sim.state.decision()
    assert decision is not None, "a recorded step always has a decision"
    return decision


def _check_resampled_parent(header: dict[str, Any], step: int) -> None:
    # A resampled branch's later steps need its re-deal, which a branch of it would not know to repeat.
    branch = header.get("branch")
    if branch and branch.get("resample") is not None and step > kept_steps(branch):
        raise BranchRefused("step", f"this match re-dealt its hidden future after step {kept_steps(branch)}: branch "
                                    f"it at step {kept_steps(branch)} or before, or branch a game that was not "
                                    "resampled")


def _kept(record: dict[str, Any]) -> dict[str, Any]:
    # Faults are the parent's bots': the branch's seats start with none (and full time banks).
    return {key: value for key, value in record.items() if key in ("seat", "choice", "ms", "cpu_ms", "forced")}


def seat_versions(parent: Match, user: Any, seats: Mapping[int, str]) -> list[BotVersion]:
    """The branch's bot versions in seat order: the parent's, or the ones asked for (seats counted from 1); each one
    the user may seat."""
    for number in seats:
        if not 1 <= number <= parent.num_players:
            raise BranchRefused("seats", f"seat {number} is not a seat of match {parent.pk}: its seats are 1 to "
                                         f"{parent.num_players} (counted from 1, as on the pages)")
    versions = []
    for seat in parent.seats.select_related("bot_version__bot").order_by("number"):
        number = seat.number + 1
        if number in seats:
            versions.append(seatable(user, parent.game, number, seats[number]))
        elif can_see_bot(user, seat.bot_version.bot):
            versions.append(seat.bot_version)
        else:
            raise BranchRefused("seats", f"seat {number} is a private bot you may not seat: give it another bot")
    return versions


def describe(user: Any, branch: Match) -> str:
    """What a branch changed, in words, seats counted from 1 and each bot named as `user` may see it: "at step 40,
    option 1 forced, seat 2 plays built-in random instead of greedy@1, resampled" (the command's and the lists'
    line). An uploaded bot that takes over after step 0 is said to start without its memory: only built-in bots are
    walked through the parent's steps (docs/branches.md#what-a-branch-is)."""
    assert branch.parent is not None
    seats = {m.pk: list(m.seats.select_related("bot_version__bot").order_by("number")) for m in (branch.parent, branch)}
    parts = [f"at step {branch.branch_step}"]
    if branch.branch_force is not None:
        parts.append(f"option {branch.branch_force} forced")
    for old, new in zip(seats[branch.parent.pk], seats[branch.pk], strict=True):
        if old.bot_version_id != new.bot_version_id:
            parts.append(f"seat {new.number + 1} plays {_named(user, new.bot_version)} instead of "
                         f"{_named(user, old.bot_version)}")
    if branch.branch_resample is not None:
        parts.append("resampled")
    parts += [f"seat {new.number + 1}'s uploaded bot starts at the branch point without its memory of the parent's "
              "steps" for new in seats[branch.pk] if not new.bot_version.builtin and branch.branch_step]
    return ", ".join(parts)


def _named(user: Any, version: BotVersion) -> str:
    return f"built-in {version.builtin}" if version.builtin and version.bot.name == version.builtin \
        else seat_label(user, version)


def seatable(user: Any, game: str, number: int, bot: str) -> BotVersion:
    """A built-in bot by name, or an active version of the game that the user may seat (the match requests' rule: a
    version the user may not see answers like a missing one)."""
    bot = str(bot).strip()
    if is_bot_name(bot):
        return ensure_builtin(bot)
    if not is_whole(bot):
        raise BranchRefused("seats", f"seat {number}: {bot!r} is neither a built-in bot ({', '.join(bot_names())}) "
                                     "nor a bot version id")
    version = visible_versions(user).select_related("bot").filter(pk=int(bot)).first()
    if version is None:
        raise BranchRefused("seats", f"seat {number}: no bot version {bot} that you may seat")
    if version.status != BotVersion.Status.ACTIVE or not (version.bot.game == game or version.is_builtin()):
        raise BranchRefused("seats", f"seat {number}: {version.label} is not an active {game} bot")
    return version


def check_resample(document: dict[str, Any], request: BranchRequest, prefix: list[dict[str, Any]],
                   seed: int | None) -> None:
    """A game whose states cannot be re-dealt is refused now, not failed on a worker later."""
    if seed is None:
        return
    branch = {"parent": None, "step": request.step, "force": request.force, "resample": seed}
    try:
        branch_start(dict(document["header"], branch=branch), prefix)
    except NotImplementedError as exc:
        raise BranchRefused("resample", str(exc)) from exc


def resample_seeds(request: BranchRequest) -> list[int | None]:
    """One resample seed per game (None: the parent's hidden future), derived from the request's seed."""
    if not 1 <= request.games <= MAX_GAMES:
        raise BranchRefused("games", f"games must be 1 to {MAX_GAMES}, got {request.games}")
    if not request.resample:
        if request.games > 1:
            raise BranchRefused("games", "more than one game needs resample: without it every game has the "
                                         "parent's hidden future")
        if request.seed is not None:
            raise BranchRefused("seed", "seed chooses the re-dealt futures: give resample too")
        return [None]
    seed = new_seed() if request.seed is None else request.seed
    return [derive_match_seed(seed, game) for game in range(request.games)]  # 62 bits: as wide as a game's seed
