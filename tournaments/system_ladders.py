"""The system's paused ladders that hold its unrated matches: validation smoke matches, try-outs and branches.

Never scheduled (paused), never rated; one per game and purpose, made on first use.
"""

from __future__ import annotations

import uuid

from django.db import IntegrityError
from django.db.models import Q

from tournaments.builtins import SYSTEM_USER, system_user
from tournaments.models import Ladder

VALIDATION_LADDER = "validation "  # the name's start of the system's validation ladders (workers.validation)
BRANCHES_LADDER = "branches "  # the name's start of the system's ladders of branches (replays.branches)
TRYOUT_LADDER = "try_bot "  # the name's start of the system's ladders of try-outs (manage.py try_bot)


def internal_ladders(prefix: str = "") -> Q:
    """The system's ladders (a Q on Ladder, or through `prefix`, e.g. "match__ladder__"): unrated work only, never
    public ladder pages, never in a bot's record (tournaments/pages/unrated.py)."""
    return Q(**{f"{prefix}created_by__username": SYSTEM_USER})


def system_ladder(prefix: str, game: str, players: int, note: str) -> Ladder:
    """The system's paused ladder named `prefix + game`. Should an organiser have taken its name, the system's gets
    a suffix nobody can guess."""
    system = system_user()
    ladder = Ladder.objects.filter(created_by=system, name__startswith=prefix, game=game).first()
    if ladder is not None:
        return ladder
    defaults = {"game": game, "players_per_match": players, "paused": True, "matchmaking": {"note": note}}
    try:
        return Ladder.objects.get_or_create(name=f"{prefix}{game}", created_by=system, defaults=defaults)[0]
    except IntegrityError:  # an organiser's ladder has the name
        return Ladder.objects.create(name=f"{prefix}{game} {uuid.uuid4().hex[:8]}", created_by=system, **defaults)
