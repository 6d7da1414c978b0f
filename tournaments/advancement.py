"""A running tournament advances on its own (docs/architecture.md#tournaments-ladders-and-ratings): rounds, byes,
eliminations, withdrawals, the end.

- Round robin schedules every table when it starts: its tables do not depend on results.
- Swiss and single elimination schedule round 1 when they start. `advance_tournament` is called after every
  match of the tournament ends (finished, failed or cancelled; services.finish_tournament_if_done) and by the
  beat task `workers.advance_tournaments` as a safety net. Under a row lock on the tournament it does nothing
  while a match of the round is queued or running, or a finished one's replay is still verifying (its result may
  yet be reverted: no pairing, elimination or final standing rests on it; the verification advances the tournament
  when it is done); otherwise it schedules the next round, or finishes the tournament when the format says it is
  over. The lock and the check make it idempotent: whichever caller comes last sees every result (record_result
  takes the same lock), and a second call finds the new round pending.
- Withdrawing an entry: its queued matches are cancelled (unrated; the other seats of those games get no result),
  a match already running plays out and counts, and no later round seats it. Swiss drops it from the pairing;
  elimination never advances it, so its table's best other entrant goes on.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from tournaments import new_matches
from tournaments.dispatch import enqueue_matches, results_verifying
from tournaments.formats import elimination, round_robin, swiss
from tournaments.formats.sets import game_points, set_games, table_seed
from tournaments.models import Entry, Match, Rating, Seat, Tournament
from tournaments.ratings import MODEL

logger = logging.getLogger(__name__)

Format, State, Status = Tournament.Format, Tournament.State, Match.Status
PENDING = [Status.QUEUED, Status.RUNNING]


# --- creating matches -------------------------------------------------------------------------------------------


def create_table(tournament: Tournament, round_number: int, table: int, seats: Sequence[int],
                 sets: int = 1) -> list[Match]:
    """`sets` sets of games_per_set games each, seats rotated within a set, one seed per set."""
    return new_matches.create_matches(tournament, [
        (rotated, seed, {"round": round_number, "table": table, "set_number": set_number})
        for set_number in range(sets)
        for rotated, seed in set_games(seats, tournament.games_per_set,
                                       table_seed(tournament.seed, round_number, table, set_number))
    ])


def enqueue(matches: Sequence[Match]) -> None:
    enqueue_matches([match.pk for match in matches])


# --- starting ---------------------------------------------------------------------------------------------------


def schedule_start(tournament: Tournament) -> list[Match]:
    """Round 1 (or, for round robin, every round); call under the tournament's lock as it becomes running."""
    versions = active_entries(tournament)
    Rating.objects.bulk_create(
        [Rating(tournament=tournament, bot_version_id=v, mu=_prior()[0], sigma=_prior()[1]) for v in versions],
        ignore_conflicts=True,
    )
    if tournament.format == Format.ROUND_ROBIN:
        pairings = round_robin.schedule(versions, tournament.players_per_table, tournament.games_per_set,
                                        tournament.seed)
        matches = new_matches.create_matches(
            tournament, [(p.seats, p.seed, {"round": p.round, "table": p.table}) for p in pairings])
        _set_round(tournament, max(p.round for p in pairings))
        return matches
    return schedule_round(tournament, 1)


def _prior() -> tuple[float, float]:
    return MODEL.mu, MODEL.sigma


def _set_round(tournament: Tournament, number: int) -> None:
    tournament.current_round = number
    Tournament.objects.filter(pk=tournament.pk).update(current_round=number)


def schedule_round(tournament: Tournament, number: int) -> list[Match]:
    """The tables of a Swiss or elimination round from the results so far; empty when none can be formed."""
    if tournament.format == Format.SWISS:
        matches = _swiss_round(tournament, number)
    else:
        matches = _elimination_round(tournament, number)
    if matches:
        _set_round(tournament, number)
    return matches


def _swiss_round(tournament: Tournament, number: int) -> list[Match]:
    entries = {e.bot_version_id: e for e in tournament.entry_set.filter(withdrawn_at__isnull=True)}
    if len(entries) < tournament.players_per_table:
        return []
    points = entry_points(tournament)
    tiebreak = conservative_ratings(tournament)
    ordered = sorted(entries, key=lambda v: (-points.get(v, 0.0), -tiebreak.get(v, 0.0), entries[v].pk))
    pairing = swiss.pair_round([(v, points.get(v, 0.0)) for v in ordered], tournament.players_per_table,
                               swiss.met_counts(played_tables(tournament)),
                               {v: len(e.byes) for v, e in entries.items()})
    _give_byes([entries[v] for v in pairing.byes], number)
    return [m for table, seats in enumerate(pairing.tables) for m in create_table(tournament, number, table, seats)]


def _elimination_round(tournament: Tournament, number: int) -> list[Match]:
    alive = seeded_alive(tournament)
    if len(alive) < 2:
        return []
    by_version = {e.bot_version_id: e for e in alive}
    tables = elimination.deal_tables([e.bot_version_id for e in alive], tournament.players_per_table)
    _give_byes([by_version[t[0]] for t in tables if len(t) == 1], number)
    return [m for index, seats in enumerate(tables) if len(seats) > 1
            for m in create_table(tournament, number, index, seats, sets=tournament.best_of)]


def _give_byes(entries: Sequence[Entry], number: int) -> None:
    for entry in entries:
        entry.byes = [*entry.byes, number]
        entry.save(update_fields=["byes"])


def seeded_alive(tournament: Tournament) -> list[Entry]:
    """Entries still in an elimination bracket, in seed order (the order they entered)."""
    return list(tournament.entry_set.filter(withdrawn_at__isnull=True, eliminated_round__isnull=True).order_by("pk"))


# --- results the formats need -----------------------------------------------------------------------------------


def finished_games(tournament: Tournament, round_number: int | None = None) -> dict[int, list[Seat]]:
    """Finished games' seats, by match id, in seat order."""
    seats = Seat.objects.filter(match__tournament=tournament, match__status=Status.FINISHED)
    if round_number is not None:
        seats = seats.filter(match__round=round_number)
    games: dict[int, list[Seat]] = defaultdict(list)
    for seat in seats.select_related("match").order_by("match_id", "number"):
        games[seat.match_id].append(seat)
    return dict(games)


def entry_points(tournament: Tournament) -> dict[int, float]:
    """Points per bot version: game points over finished games, plus a won set for each bye (Swiss)."""
    points: dict[int, float] = defaultdict(float)
    for seats in finished_games(tournament).values():
        ranks = [s.rank or 0 for s in seats]
        for seat in seats:
            points[seat.bot_version_id] += game_points(seat.rank or 0, ranks)
    bye_value = bye_points(tournament)
    for entry in tournament.entry_set.exclude(byes=[]):
        points[entry.bot_version_id] += bye_value * len(entry.byes)
    return dict(points)


def bye_points(tournament: Tournament) -> float:
    """A bye is worth a set won outright: every game of it ahead of every opponent."""
    return float((tournament.players_per_table - 1) * tournament.games_per_set)


def conservative_ratings(tournament: Tournament) -> dict[int, float]:
    return {r.bot_version_id: r.conservative for r in Rating.objects.filter(tournament=tournament)}


def played_tables(tournament: Tournament) -> list[tuple[int, ...]]:
    """Every table scheduled so far (one entry per table, not per game), for Swiss's no-repeat rule."""
    tables: dict[tuple[int | None, int | None], tuple[int, ...]] = {}
    for round_number, table, version in (Seat.objects.filter(match__tournament=tournament)
                                         .order_by("match_id", "number")
                                         .values_list("match__round", "match__table", "bot_version_id")):
        key = (round_number, table)
        if version not in tables.get(key, ()):
            tables[key] = (*tables.get(key, ()), version)
    return list(tables.values())


def table_results(tournament: Tournament, round_number: int) -> dict[int, dict[int, elimination.TableResult]]:
    """Per table of an elimination round: each version's sets won and points (finished games only)."""
    by_set: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for seats in finished_games(tournament, round_number).values():
        match = seats[0].match
        ranks = [s.rank or 0 for s in seats]
        for seat in seats:
            by_set[(match.table or 0, match.set_number)][seat.bot_version_id] += game_points(seat.rank or 0, ranks)
    results: dict[int, dict[int, elimination.TableResult]] = defaultdict(dict)
    for (table, _), points in sorted(by_set.items()):
        best = max(points.values())
        for version, value in points.items():
            old = results[table].get(version, elimination.TableResult())
            results[table][version] = elimination.TableResult(old.sets_won + (value == best), old.points + value)
    return results


# --- advancing --------------------------------------------------------------------------------------------------


def advance_tournament(tournament_id: int) -> str:
    """Schedule the next round or finish, once nothing of the current round is pending; safe to call any time.

    Returns "waiting" (matches pending), "waiting on verification" (a finished match's replay is still verifying),
    "advanced" (a new round is queued), "finished", or "idle" (not running). A failed match is the platform's fault,
    never a game's: the tournament waits ("waiting on failed") until the organiser requeues it
    (services.requeue_failed) or cancels it, so no standings rest on a game never played.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.state != State.RUNNING:
            return "idle"
        if tournament.matches.filter(status__in=PENDING).exists():
            return "waiting"
        if tournament.matches.filter(status=Status.FAILED).exists():
            return "waiting on failed"
        if results_verifying(tournament.matches.filter(status=Status.FINISHED)):
            return "waiting on verification"
        matches = next_round(tournament)
        if not matches:
            finish(tournament)
            return "finished"
        enqueue(matches)
    return "advanced"


def next_round(tournament: Tournament) -> list[Match]:
    """The next round's matches, or [] when the format says the tournament is over."""
    number = tournament.current_round
    if tournament.format == Format.ROUND_ROBIN:
        return []
    if tournament.format == Format.SWISS:
        total = tournament.rounds or swiss.default_rounds(tournament.entry_set.count())
        return schedule_round(tournament, number + 1) if number < total else []
    alive = seeded_alive(tournament)
    # The final is the round that had one table and no bye (withdrawals may shrink a round, not make it a final).
    tables = set(tournament.matches.filter(round=number).values_list("table", flat=True))
    byes = sum(number in e.byes for e in alive)
    was_final = len(tables) + byes <= 1
    eliminate(tournament, number, alive, final=was_final)
    return [] if was_final else schedule_round(tournament, number + 1)


def eliminate(tournament: Tournament, number: int, alive: Sequence[Entry], final: bool = False) -> None:
    """Mark who is out after an elimination round: everyone at a table who did not advance (the final: but one)."""
    seed_rank = {e.bot_version_id: i for i, e in enumerate(seeded_alive(tournament))}
    by_table: dict[int, list[int]] = defaultdict(list)
    for table, version in (Seat.objects.filter(match__tournament=tournament, match__round=number, match__set_number=0)
                           .order_by("match__table", "number").values_list("match__table", "bot_version_id")):
        if version in seed_rank and version not in by_table[table or 0]:
            by_table[table or 0].append(version)
    results = table_results(tournament, number)
    players = 2 if final else tournament.players_per_table  # a final keeps one: the champion
    going = {v for table, members in by_table.items()
             for v in elimination.advancers(members, results.get(table, {}), seed_rank, players)}
    seated = {v for members in by_table.values() for v in members}
    out = [e.pk for e in alive if e.bot_version_id in seated and e.bot_version_id not in going]
    Entry.objects.filter(pk__in=out).update(eliminated_round=number)


def finish(tournament: Tournament) -> None:
    tournament.state, tournament.finished_at = State.FINISHED, timezone.now()
    tournament.save(update_fields=["state", "finished_at"])


def advance_running_tournaments() -> int:
    """The beat task's sweep: advance every running tournament (a worker may have died after its result)."""
    moved = 0
    for tournament_id in Tournament.objects.filter(state=State.RUNNING).values_list("pk", flat=True):
        try:
            moved += advance_tournament(tournament_id) in ("advanced", "finished")
        except Exception:
            logger.exception("advancing tournament %s failed", tournament_id)
    return moved


# --- organisers' actions ------------------------------------------------------------------------------------------


def withdraw_entry(tournament: Tournament, bot_version_id: int) -> int:
    """Withdraw one entry from a running or draft tournament; return how many of its queued matches were cancelled.

    Raises ValidationError for an unknown or already withdrawn entry, or a finished or cancelled tournament.
    """
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.state not in (State.DRAFT, State.RUNNING):
            raise ValidationError(f"tournament {tournament.pk} is {locked.state}; its entries are final")
        entry = locked.entry_set.filter(bot_version_id=bot_version_id).first()
        if entry is None:
            raise ValidationError(f"bot version {bot_version_id} has no entry in tournament {tournament.pk}")
        if entry.withdrawn_at is not None:
            raise ValidationError(f"bot version {bot_version_id} was withdrawn from tournament {tournament.pk} already")
        entry.withdrawn_at = timezone.now()
        entry.save(update_fields=["withdrawn_at"])
        cancelled = Match.objects.filter(tournament=locked, status=Status.QUEUED,
                                         seats__bot_version_id=bot_version_id).update(
            status=Status.CANCELLED, finished_at=timezone.now(), error="an entrant withdrew")
    advance_tournament(tournament.pk)  # the cancelled games may have been the last of the round
    return cancelled


def cancel_tournament(tournament: Tournament) -> int:
    """draft or running → cancelled, with its queued and running matches; return how many matches were cancelled.

    Raises ValidationError for a finished or cancelled tournament. Finished matches and their ratings stay.
    """
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.state not in (State.DRAFT, State.RUNNING):
            raise ValidationError(f"tournament {tournament.pk} is {locked.state}; it cannot be cancelled")
        Tournament.objects.filter(pk=tournament.pk).update(state=State.CANCELLED, finished_at=timezone.now())
        tournament.state = State.CANCELLED
        return Match.objects.filter(tournament=locked, status__in=PENDING).update(
            status=Status.CANCELLED, lease_expires=None, finished_at=timezone.now())


def active_entries(tournament: Tournament) -> list[int]:
    return list(tournament.entry_set.filter(withdrawn_at__isnull=True).order_by("pk")
                .values_list("bot_version_id", flat=True))
