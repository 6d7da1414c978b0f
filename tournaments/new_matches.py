"""Creating a match with its seats: the one place that does it, for tournaments, ladders, the API and try-outs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tournaments.models import BotVersion, Ladder, Match, Seat, Tournament

BATCH = 500  # rows per INSERT: a 5,000-match round robin is ten statements for its matches, not 10,000 round trips

Game = tuple[Sequence[int | BotVersion], int, dict[str, Any]]  # seats in seat order, seed, other fields


def create_match(competition: Ladder | Tournament, seats: Sequence[int | BotVersion], seed: int, *,
                 rated: bool = True, **fields: Any) -> Match:
    """A queued match of the competition with its seats (bot versions or their ids, in seat order).

    Game, options and clock come from the competition; `fields` sets the rest (round, table, set_number) or
    overrides them (a try-out's own clock). Not enqueued: the caller does that once its transaction commits.
    """
    return create_matches(competition, [(seats, seed, fields)], rated=rated)[0]


def create_matches(competition: Ladder | Tournament, games: Sequence[Game], *, rated: bool = True) -> list[Match]:
    """Many queued matches of one competition with their seats, inserted in batches (see create_match)."""
    owner = {"ladder": competition} if isinstance(competition, Ladder) else {"tournament": competition}
    settings = dict(game=competition.game, options=competition.options, move_ms=competition.move_ms,
                    bank_ms=competition.bank_ms, max_faults=competition.max_faults)
    matches = Match.objects.bulk_create(
        [Match(**owner, **(settings | fields), num_players=len(seats), seed=seed, rated=rated)
         for seats, seed, fields in games], batch_size=BATCH)
    Seat.objects.bulk_create([Seat(match=match, number=n, bot_version_id=v.pk if isinstance(v, BotVersion) else v)
                              for match, (seats, _, _) in zip(matches, games, strict=True)
                              for n, v in enumerate(seats)], batch_size=BATCH)
    return matches
