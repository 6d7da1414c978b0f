"""Creating a match with its seats: the one place that does it, for tournaments, ladders, the API and try-outs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tournaments.models import BotVersion, Ladder, Match, Seat, Tournament


def create_match(competition: Ladder | Tournament, seats: Sequence[int | BotVersion], seed: int, *,
                 rated: bool = True, **fields: Any) -> Match:
    """A queued match of the competition with its seats (bot versions or their ids, in seat order).

    Game, options and clock come from the competition; `fields` sets the rest (round, table, set_number) or
    overrides them (a try-out's own clock). Not enqueued: the caller does that once its transaction commits.
    """
    owner = {"ladder": competition} if isinstance(competition, Ladder) else {"tournament": competition}
    settings = dict(game=competition.game, options=competition.options, move_ms=competition.move_ms,
                    bank_ms=competition.bank_ms, max_faults=competition.max_faults)
    match = Match.objects.create(**owner, **(settings | fields), num_players=len(seats), seed=seed, rated=rated)
    Seat.objects.bulk_create([Seat(match=match, number=n, bot_version_id=getattr(v, "pk", v))
                              for n, v in enumerate(seats)])
    return match
