"""OpenSkill Plackett-Luce ratings (docs/architecture.md#tournaments-ladders-and-ratings): 2-6 players, ties, forfeits
ranked last by the outcome.

One serial order per competition: record_result locks the ladder's or tournament's row first, and rate_seats
numbers the match with the competition's next `rating_seq` under that lock. recompute_ratings replays rated
matches in `rating_seq` order, so it reproduces the live ratings exactly, however many workers recorded them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import Field, Model, Q
from django.utils import timezone
from openskill.models import PlackettLuce

from tournaments.models import Ladder, Match, Rating, Seat, Tournament
from tournaments.rows import columns, instances

MODEL = PlackettLuce()
# What a rating row holds apart from its keys: mu, sigma, games, wins and the seat record (Rating.seat_record).
Values = tuple[float, float, int, int, list[list[int]]]
PRIOR: Values = (MODEL.mu, MODEL.sigma, 0, 0, [])


def add_seat(record: list[list[int]], number: int, won: bool) -> list[list[int]]:
    """The seat record ([games, wins] by seat number) with one more game, won or not, at this seat number."""
    padded = [list(pair) for pair in record] + [[0, 0] for _ in range(number + 1 - len(record))]
    padded[number] = [padded[number][0] + 1, padded[number][1] + won]
    return padded


def lock_competition(match: Match, finishing: bool = False) -> int | None:
    """Lock the row of the match's ladder or tournament until the transaction ends, in one statement. For a rated
    match the lock is the update that takes the competition's next `rating_seq`, returned (None when unrated).
    finishing: the match's result is being recorded, so the competition's standings rows count one more finished
    match (`standings_matches`, tournaments/standings.py): in the same update."""
    return send_competition_lock(match, finishing)()


def send_competition_lock(match: Match, finishing: bool = False) -> Callable[[], int | None]:
    """lock_competition's statement, sent: on PostgreSQL in a pipeline (record_result) its answer comes with the
    next statement's that is read; the function returned reads the `rating_seq` taken (None when unrated)."""
    model: type[Ladder] | type[Tournament] = Ladder if match.ladder_id else Tournament
    pk = match.ladder_id or match.tournament_id
    if pk is None:
        raise ValueError(f"match {match.pk} belongs to no ladder or tournament")
    counts = ['"rating_seq" = "rating_seq" + 1'] if match.rated else []
    counts += ['"standings_matches" = "standings_matches" + 1'] if finishing else []
    if not counts:  # an unrated match's lock alone
        list(model.objects.select_for_update().filter(pk=pk).values_list("pk"))
        return lambda: None
    cursor = connection.cursor()
    cursor.execute(f'UPDATE "{model._meta.db_table}" SET {", ".join(counts)} WHERE "id" = %s RETURNING "rating_seq"',
                   [pk])

    def taken() -> int | None:
        with cursor:
            row = cursor.fetchone()
        if row is None:
            raise ValueError(f"match {match.pk} belongs to no ladder or tournament")
        return int(row[0]) if match.rated else None

    if connection.vendor != "postgresql":  # no pipeline: read at once (SQLite steps a RETURNING as it is read)
        seq = taken()
        return lambda: seq
    return taken


def next_rating_seq(match: Match) -> int:
    """The competition's next rating sequence number, taken under its row lock; stored on the match."""
    seq = lock_competition(match)
    assert seq is not None, "only rated matches are numbered"
    Match.objects.filter(pk=match.pk).update(rating_seq=seq)
    match.rating_seq = seq
    return seq


def ensure_ratings(match: Match, version_ids: Sequence[int]) -> None:
    """Create missing rating rows at the model's prior; concurrent creators never collide on the unique key."""
    Rating.objects.bulk_create(
        [
            Rating(ladder_id=match.ladder_id, tournament_id=match.tournament_id, bot_version_id=version_id,
                   mu=MODEL.mu, sigma=MODEL.sigma)
            for version_id in sorted(version_ids)
        ],
        ignore_conflicts=True,
    )


def locked_ratings(match: Match, version_ids: Sequence[int]) -> dict[int, Rating]:
    """The seats' rating rows, locked in primary-key order: one statement once they exist, else created first."""

    def select() -> dict[int, Rating]:
        sql, params = versions_rows(Rating, match, version_ids, lock=True)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            locked: list[Rating] = [instances(row, (Rating,))[0] for row in cursor.fetchall()]
        return {rating.bot_version_id: rating for rating in locked}

    ratings = select()
    if len(ratings) < len(set(version_ids)):
        ensure_ratings(match, version_ids)
        ratings = select()
    return ratings


def versions_rows(model: type[Model], match: Match, version_ids: Sequence[int], lock: bool = False
                  ) -> tuple[str, list[Any]]:
    """The statement, and its parameters, that reads the match's competition's rows of model (ratings, standings rows)
    for these bot versions in primary-key order, locked for update if asked. Written out: the ORM's query building
    and instances cost 1.5 ms more than this, on every rated result."""
    competition = "ladder_id" if match.ladder_id else "tournament_id"
    lock = lock and connection.features.has_select_for_update  # SQLite locks the whole file
    return (_versions_rows_sql(model, competition, len(version_ids), lock, connection.vendor),
            [match.ladder_id or match.tournament_id, *version_ids])


@functools.cache
def _versions_rows_sql(model: type[Model], competition: str, versions: int, lock: bool, vendor: str) -> str:
    return (f'SELECT {columns(model, "r")} FROM {connection.ops.quote_name(model._meta.db_table)} r '
            f'WHERE r."{competition}" = %s AND r."bot_version_id" IN ({", ".join(["%s"] * versions)}) '
            f'ORDER BY r."id"{" FOR UPDATE" if lock else ""}')


def rate_seats(match: Match, seats: Sequence[Seat], seq: int | None = None,
               ratings: dict[int, Rating] | None = None) -> None:
    """Update the ratings of the seats' versions from their ranks; call inside the result's transaction.

    seq is the match's rating_seq when the caller already took it (record_result, with the competition's lock);
    without it, it is taken here. ratings: the rows of locked_ratings, when the caller locked them already. The rows
    are locked in primary-key order, so concurrent results serialize instead
    of deadlocking, and every seat keeps its rating before and after.
    """
    version_ids = [seat.bot_version_id for seat in seats]
    if len(set(version_ids)) != len(version_ids):
        raise ValueError(f"match {match.pk} seats one version twice; such matches are created unrated")
    if seq is None:
        next_rating_seq(match)
    if ratings is None:
        ratings = locked_ratings(match, version_ids)
    before = [ratings[seat.bot_version_id] for seat in seats]
    teams = [[MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in before]
    ranks: list[float] = [float(seat.rank or 0) for seat in seats]  # record_result sets every rank first
    after = MODEL.rate(teams, ranks=ranks)
    now = timezone.now()
    for seat, rating, [new] in zip(seats, before, after, strict=True):
        seat.rating_mu_before, seat.rating_sigma_before = rating.mu, rating.sigma
        seat.rating_mu_after, seat.rating_sigma_after = new.mu, new.sigma
        rating.mu, rating.sigma = new.mu, new.sigma
        rating.games += 1
        rating.wins += 1 if seat.rank == 1 else 0
        rating.seat_record = add_seat(rating.seat_record, seat.number, seat.rank == 1)
        rating.updated_at = now  # bulk_update skips auto_now
    update_rows(Rating, before, ["mu", "sigma", "games", "wins", "seat_record", "updated_at"])


def unrate(match: Match, seats: Sequence[Seat]) -> None:
    """Take a rated match's result out of its competition's ratings, under the competition's row lock (revert_result;
    seats: the match's seats as rated, read before their results were cleared). Its versions go back to their
    ratings before it, and each later rated match that seats a version whose rating so changed is rated again, in
    rating_seq order, from its seats' ratings as they now stand, its seats' before and after rewritten: what
    recompute_ratings would give. Only the matches rated after it are read. A revert follows its result by the few
    seconds of a verification, so it costs those few matches, not the competition's history (rebuild_ratings, which
    replays all of it, is for `recompute_ratings`)."""
    rating: dict[int, tuple[float, float]] = {}
    for seat in seats:
        assert seat.rating_mu_before is not None and seat.rating_sigma_before is not None, "a rated seat"
        rating[seat.bot_version_id] = (seat.rating_mu_before, seat.rating_sigma_before)
    competition = Q(ladder_id=match.ladder_id) if match.ladder_id else Q(tournament_id=match.tournament_id)
    rerated: list[Seat] = []
    for later in (Match.objects.filter(competition, status=Match.Status.FINISHED, rated=True,
                                       rating_seq__gt=match.rating_seq)
                  .order_by("rating_seq", "pk").prefetch_related("seats")):
        table = sorted(later.seats.all(), key=lambda seat: seat.number)
        if not any(seat.bot_version_id in rating for seat in table):
            continue  # its ratings before are the ones it was rated from
        before = [rating.get(seat.bot_version_id, (seat.rating_mu_before, seat.rating_sigma_before))
                  for seat in table]
        teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
        after = MODEL.rate(teams, ranks=[float(seat.rank or 0) for seat in table])
        for seat, (mu, sigma), [new] in zip(table, before, after, strict=True):
            seat.rating_mu_before, seat.rating_sigma_before = mu, sigma
            seat.rating_mu_after, seat.rating_sigma_after = new.mu, new.sigma
            rating[seat.bot_version_id] = (new.mu, new.sigma)
        rerated += table
    update_rows(Seat, rerated, ["rating_mu_before", "rating_sigma_before", "rating_mu_after", "rating_sigma_after"])
    rows = list(Rating.objects.filter(competition, bot_version_id__in=list(rating)).order_by("pk"))
    reverted, now = {seat.bot_version_id: seat for seat in seats}, timezone.now()
    for row in rows:
        row.mu, row.sigma = rating[row.bot_version_id]
        row.updated_at = now
        if (taken := reverted.get(row.bot_version_id)) is not None:
            won = taken.rank == 1
            row.games -= 1
            row.wins -= won
            row.seat_record = remove_seat(row.seat_record, taken.number, won)
    update_rows(Rating, rows, ["mu", "sigma", "games", "wins", "seat_record", "updated_at"])


def remove_seat(record: list[list[int]], number: int, won: bool) -> list[list[int]]:
    """add_seat undone: the seat record with that game taken away, and no seat numbers left at its end that have no
    game (as a record made by add_seat alone never has)."""
    left = [list(pair) for pair in record]
    left[number] = [left[number][0] - 1, left[number][1] - won]
    while left and left[-1][0] == 0:
        left.pop()
    return left


def update_rows(model: type[Model], rows: Sequence[Model], fields: Sequence[str]) -> None:
    """One UPDATE of these fields of these rows, by primary key: what `bulk_update` writes, joined to a list of the
    rows' values instead of its CASE per field. bulk_update's per-value expression objects cost more than the whole
    statement (about 40 ms for a 4-seat match's seats and ratings on a busy machine), and a CASE per field takes two
    parameters a value: past 50, psycopg parses such a statement anew each time, where this one (one a value, the
    same text for as many rows) is parsed once."""
    if not rows:
        return
    db = connections[DEFAULT_DB_ALIAS]  # the connection itself: every attribute read through `connection` is a lookup
    sql, prepared = _update_statement(model, tuple(fields), len(rows), db.vendor)
    params: list[Any] = []
    for row in rows:
        params.append(row.pk)
        params.extend(prepare(getattr(row, attname), db) for attname, prepare in prepared)
    with db.cursor() as cursor:
        cursor.execute(sql, params)


@functools.cache
def _update_statement(model: type[Model], fields: tuple[str, ...], count: int, vendor: str
                      ) -> tuple[str, list[tuple[str, Callable[[Any, Any], Any]]]]:
    """update_rows' statement for count rows, and each field's attribute with what prepares its value."""
    quote, meta = connection.ops.quote_name, model._meta
    assert meta.pk is not None and meta.pk.column is not None  # every model here has an integer primary key
    concrete = []
    for name in fields:
        field = meta.get_field(name)
        assert isinstance(field, Field) and field.column is not None, name  # concrete columns, not relations
        concrete.append(field)
    pk, table = quote(meta.pk.column), quote(meta.db_table)
    names = [pk, *(quote(str(field.column)) for field in concrete)]

    def assigned(field: Field[Any, Any]) -> str:
        value = f"v.{quote(str(field.column))}"
        if vendor == "postgresql":  # the listed values' types come from their literals (NULL, text): cast each
            value = f"CAST({value} AS {field.db_type(connection)})"
        return f"{quote(str(field.column))} = {value}"

    row = f"({', '.join(['%s'] * len(names))})"
    sql = (f"WITH v ({', '.join(names)}) AS (VALUES {', '.join([row] * count)}) UPDATE {table} SET "
           f"{', '.join(assigned(field) for field in concrete)} FROM v WHERE {table}.{pk} = v.{pk}")
    return sql, [(field.attname, field.get_db_prep_save) for field in concrete]


def recompute_ratings(match_filter: Q) -> dict[int, Values]:
    """Ratings replayed from match history: bot version id → (mu, sigma, games, wins, seat record).

    Rated finished matches are applied in rating_seq order, the order the live updates were serialized in, so the
    result must equal the live ratings.
    """
    ratings: dict[int, Values] = {}
    matches = (Match.objects.filter(match_filter, status=Match.Status.FINISHED, rated=True)
               .order_by("rating_seq", "pk").prefetch_related("seats"))
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda seat: seat.number)
        before = [ratings.get(seat.bot_version_id, PRIOR) for seat in seats]
        teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma, *_ in before]
        after = MODEL.rate(teams, ranks=[float(seat.rank or 0) for seat in seats])
        for seat, (_, _, games, wins, record), [new] in zip(seats, before, after, strict=True):
            won = seat.rank == 1
            ratings[seat.bot_version_id] = (new.mu, new.sigma, games + 1, wins + won,
                                            add_seat(record, seat.number, won))
    return ratings


def rating_differences(competition: Q, match_filter: Q) -> list[str]:
    """Where the live ratings of a competition differ from the recomputed ones (empty when they agree)."""
    recomputed = recompute_ratings(match_filter)
    problems = []
    for rating in Rating.objects.filter(competition).select_related("bot_version__bot"):
        expected = recomputed.pop(rating.bot_version_id, PRIOR)
        live = (rating.mu, rating.sigma, rating.games, rating.wins, rating.seat_record)
        numbers_agree = all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
                            for a, b in zip(live[:4], expected[:4], strict=True))
        if not numbers_agree or live[4] != expected[4]:
            problems.append(f"{rating.bot_version.label}: live {live}, recomputed {expected}")
    problems.extend(f"bot version {version_id}: no live rating, recomputed {values}"
                    for version_id, values in recomputed.items())
    return problems


def rebuild_ratings(model: type[Ladder] | type[Tournament], pk: int) -> list[str]:
    """Set a competition's live ratings to the recomputed ones, under its row lock; return what was different."""
    field = "ladder_id" if model is Ladder else "tournament_id"
    where = Q(**{field: pk})
    with transaction.atomic():
        model.objects.select_for_update().get(pk=pk)
        problems = rating_differences(where, where)
        if problems:
            recomputed = recompute_ratings(where)
            names = ("mu", "sigma", "games", "wins", "seat_record")
            for version_id, values in recomputed.items():
                key: dict[str, Any] = {field: pk, "bot_version_id": version_id}
                Rating.objects.update_or_create(**key, defaults=dict(zip(names, values, strict=True)))
            Rating.objects.filter(where).exclude(bot_version_id__in=list(recomputed)).update(
                **dict(zip(names, PRIOR, strict=True)))
    return problems
