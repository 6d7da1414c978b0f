"""A seat's stderr split by step, for its owner in the viewer: the sandbox stamps `[ludus] step N` before the output
that follows decision N (workers/sandbox/seat_log.py); what comes before the first mark was written at start-up."""

from __future__ import annotations

import re
from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404

from tournaments import visibility
from tournaments.models import Seat

MARK = re.compile(r"^\[ludus\] step (\d+)$", re.MULTILINE)


def split_by_step(log: str) -> dict[str, Any]:
    """{"start": the lines before the first decision, "steps": {N: the lines that followed decision N}}."""
    parts = MARK.split(log)
    steps: dict[str, str] = {}
    for number, text in zip(parts[1::2], parts[2::2], strict=True):
        steps[number] = steps.get(number, "") + text.strip("\n") + "\n"
    return {"start": parts[0].strip("\n"), "steps": {n: text.rstrip("\n") for n, text in steps.items()}}


def seat_log(request: HttpRequest, pk: int, seat: int) -> JsonResponse:
    """GET /replays/<match>/seats/<n>/log.json: that seat's stderr by step, for its bot's owner and staff; 404 for
    anyone else, exactly like a seat that does not exist."""
    row = get_object_or_404(Seat.objects.select_related("bot_version__bot"), match_id=pk, number=seat)
    if not visibility.can_see_seat_log(request.user, row.bot_version.bot.owner_id):
        raise Http404("no such seat log")
    response = JsonResponse({"match": pk, "seat": seat, "log": row.log, **split_by_step(row.log)})
    response["Cache-Control"] = "private, no-store"
    return response
