"""Who may see which frames of a match (ARCHITECTURE §6).

- The omniscient view: only once the match is finished, except for staff.
- A seat's view: for everyone once the match is finished; while it is not, only for that seat's bot owner and staff.

A match that is not finished (queued, running, failed, cancelled) counts as live: a failed or cancelled match may be
requeued with the same seed, so its positions must stay as hidden as a running one's.
"""

from __future__ import annotations

from typing import Any

from tournaments.api.common import is_staff
from tournaments.models import Match, Seat


def is_over(match: Match) -> bool:
    return match.status == Match.Status.FINISHED


def can_see_omniscient(user: Any, match: Match) -> bool:
    return is_over(match) or is_staff(user)


def can_see_seat(user: Any, match: Match, seat: int) -> bool:
    if is_over(match) or is_staff(user):
        return True
    if not user.is_authenticated:
        return False
    return Seat.objects.filter(match=match, number=seat, bot_version__bot__owner=user).exists()


def public_action(record: dict[str, Any]) -> dict[str, Any]:
    """An action record without its choice index: during a live match an index into a seat's options (which list
    its hand) could hint at the hand."""
    return {key: value for key, value in record.items() if key != "choice"}
