"""The sandbox as this project's settings configure it (docs/architecture.md#bots-the-wire-protocol-and-the-sandbox).

workers/sandbox/ needs no Django: what it would read from the settings is read here and passed in, the kind of
sandbox as an argument and the rest in a SandboxConfig.
"""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings

from tournaments.models import BotVersion
from tournaments.uploads import upload_limits
from workers.artifacts import build_version
from workers.sandbox.config import SANDBOX_KINDS, SandboxConfig
from workers.sandbox.seat import BotFiles, SandboxedSeat, seat_for
from workers.sandbox.seat_host import CgroupMode


def sandbox_kind(sandbox: str | None = None) -> str:
    """The sandbox to use: the argument, else settings.LUDUS_SANDBOX. Raises ValueError for anything else."""
    kind = sandbox if sandbox is not None else settings.LUDUS_SANDBOX
    if kind not in SANDBOX_KINDS:
        raise ValueError(f"LUDUS_SANDBOX must be one of {', '.join(SANDBOX_KINDS)}, got {kind!r}")
    return kind


def cgroup_mode() -> CgroupMode:
    """required, or optional when the operator opted out (LUDUS_SANDBOX_WITHOUT_CGROUPS)."""
    return "optional" if settings.LUDUS_SANDBOX_WITHOUT_CGROUPS else "required"


def sandbox_config() -> SandboxConfig:
    """A ladder match's sandbox limits, with the operator's interpreter, control groups and upload limits."""
    return replace(SandboxConfig(), cgroups=cgroup_mode(), python=settings.LUDUS_SANDBOX_PYTHON or None,
                   upload_limits=upload_limits())


def make_sandboxed_seat(bot: BotFiles, match_id: int | None, sandbox: str | None = None,
                        config: SandboxConfig | None = None) -> SandboxedSeat:
    """The SeatPlayer for an uploaded bot version in a match (None: a validation's smoke match): workers.sandbox.seat's
    seat_for, with the sandbox and limits the settings give unless named here."""
    seat = seat_for(bot, match_id, sandbox_kind(sandbox), config or sandbox_config())
    if seat.manifest.compiled and not seat.artifact and isinstance(bot, BotVersion):  # never validated: a try-out
        built = build_version(bot)  # once, stored with the version as validation would (docs/bots.md, "Languages")
        seat.artifact, seat.unbuilt = built.artifact, "" if built.ok else f"it did not build:\n{built.log}"
    return seat
