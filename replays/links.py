"""Step numbers and viewer links, one numbering for the CLI, the API, the viewer, the logs and the docs.

Step N is the Nth decision of the game (counted from 1) and the board just after it; step 0 is the board before the
first decision. A bot's `seq` is the step of the decision it answers, and a fault at step N opens the viewer on the
board that decision made, with the decision (options, choice, fault) beside it.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse


def step_of(action_index: int) -> int:
    """The step of the action at this index of the action log (0-based)."""
    return action_index + 1


def viewer_url(match_id: int, step: int | None = None, view: int | str | None = None) -> str:
    """The absolute viewer URL, opening at `step` in `view` (a seat number, "public" or "omniscient")."""
    fragment = "&".join(part for part in (f"step={step}" if step is not None else "",
                                          f"view={view}" if view is not None else "") if part)
    path = reverse("replays:viewer", args=[match_id])
    return f"{settings.LUDUS_SITE_URL}{path}" + (f"#{fragment}" if fragment else "")
