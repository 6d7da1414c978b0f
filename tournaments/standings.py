"""Standings of a tournament or a ladder, from the recorded seats: plain data for the API and pages, and a table.

- **points**: per game, one per opponent finished ahead of and a half per opponent tied with (a win at a table of
  N is worth N-1); a Swiss or elimination bye is worth a won set, (N-1) × games per set.
- **rating**: the conservative OpenSkill rating mu - 3 sigma, marked provisional while sigma is above
  LUDUS_PROVISIONAL_SIGMA.
- **by seat**: each bot's games, wins and points per seat number; each seat's win rate in the competition and
  in every game of the same game and table size, so organisers can see any first-player advantage
  (docs/architecture.md#tournaments-ladders-and-ratings).
- **head to head**: per pair of bots that shared a table, games where one finished ahead of the other.
- **rounds**: a tournament's points per round per bot; `tournament_scores` gives a bot's record in each tournament.

Order: single elimination by how far a bot went, then points; other tournaments by points; ladders by rating.
Ties then go to the conservative rating, then the name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Count, F, IntegerField, Q, QuerySet, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from rich.table import Table

from tournaments.formats.sets import game_points
from tournaments.models import Entry, Ladder, LadderEntry, Match, Rating, Seat, StandingsRow, Tournament
from tournaments.rating_rule import conservative, is_provisional, provisional_sigma
from tournaments.ratings import MODEL, update_rows, versions_rows

Competition = Tournament | Ladder


@dataclass
class SeatRecord:
    games: int = 0
    wins: int = 0
    points: float = 0.0


@dataclass
class Standing:
    """One bot's line."""

    version_id: int
    name: str
    games: int = 0
    wins: int = 0
    points: float = 0.0
    score_total: int = 0
    forfeits: int = 0
    byes: int = 0
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    withdrawn: bool = False
    eliminated_round: int | None = None
    seats: dict[int, SeatRecord] = field(default_factory=dict)
    rounds: dict[int, float] = field(default_factory=dict)
    head_to_head: dict[int, list[int]] = field(default_factory=dict)  # opponent id → [ahead, level, behind]

    @property
    def mean_score(self) -> float:
        return self.score_total / self.games if self.games else 0.0

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.sigma, self.games)

    @property
    def seat_record(self) -> list[list[int]]:
        """[games, wins] by seat number, as Rating.seat_record keeps them."""
        empty = SeatRecord()
        return [[self.seats.get(n, empty).games, self.seats.get(n, empty).wins]
                for n in range(max(self.seats, default=-1) + 1)]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(conservative=self.conservative, provisional=self.provisional, mean_score=self.mean_score)
        data["seats"] = {str(n): asdict(r) for n, r in sorted(self.seats.items())}
        data["rounds"] = {str(n): p for n, p in sorted(self.rounds.items())}
        data["head_to_head"] = {str(o): dict(zip(("ahead", "level", "behind"), r, strict=True))
                                for o, r in sorted(self.head_to_head.items())}
        return data


class SeatRow(NamedTuple):
    """The columns of a finished seat that standings read: plain tuples, since model instances for every seat of
    a competition cost most of a standings request (benchmarks/api.py)."""

    match_id: int
    number: int
    bot_version_id: int
    score: int | None
    rank: int | None
    forfeited: bool
    round: int | None


def finished_seats(competition: Competition) -> list[SeatRow]:
    where = {"match__tournament": competition} if isinstance(competition, Tournament) else {
        "match__ladder": competition}
    rows = (Seat.objects.filter(**where, match__status=Match.Status.FINISHED)
            .order_by("match_id", "number")
            .values_list("match_id", "number", "bot_version_id", "score", "rank", "forfeited", "match__round"))
    return [SeatRow(*row) for row in rows]


def _owner(competition: Competition) -> dict[str, int]:
    return {"tournament_id": competition.pk} if isinstance(competition, Tournament) else {"ladder_id": competition.pk}


def _entries(competition: Competition) -> Iterable[Entry | LadderEntry]:
    return (competition.entry_set.select_related("bot_version__bot").order_by("pk")
            .defer("bot_version__source", "bot_version__validation_log"))


# --- the rows: kept by every result, recounted from the seats to check or rebuild them ------------------------------

ROW_FIELDS = ["games", "wins", "points", "score_total", "forfeits", "seats", "rounds", "head_to_head"]


def result_rows(match: Match, seats: list[Seat]) -> tuple[str, list[Any]]:
    """The statement, and its parameters, that reads the standings rows a match's result adds to (count_result
    reads them)."""
    return versions_rows(StandingsRow, match, [seat.bot_version_id for seat in seats])


def count_result(match: Match, seats: list[Seat], found: Iterable[StandingsRow] | None = None) -> None:
    """Add a finished match's seats to its competition's standings rows (created on a version's first game). Call in
    the result's transaction, under the competition's row lock (tournaments.ratings.lock_competition), which
    serializes the rows' writers; two or three statements. found: result_rows' rows, when the caller read them
    already."""
    owner = {"ladder_id": match.ladder_id} if match.ladder_id else {"tournament_id": match.tournament_id}
    table = [SeatRow(match.pk, s.number, s.bot_version_id, s.score, s.rank, s.forfeited, match.round) for s in seats]
    if found is None:
        found = StandingsRow.objects.raw(*result_rows(match, seats))
    rows = {row.bot_version_id: row for row in found}
    new = []
    for seat in table:
        if seat.bot_version_id not in rows:
            rows[seat.bot_version_id] = StandingsRow(**owner, bot_version_id=seat.bot_version_id)
            new.append(rows[seat.bot_version_id])
        _add_game(rows[seat.bot_version_id], seat, table)
    StandingsRow.objects.bulk_create(new)
    # written out as the ratings' update is (bulk_update's expressions cost more than the statement)
    update_rows(StandingsRow, [row for row in rows.values() if row not in new], ROW_FIELDS)


def uncount_result(match: Match, seats: list[Seat]) -> bool:
    """Take a finished match's seats (as counted, read before their results were cleared) out of its competition's
    standings rows: count_result undone, under the competition's row lock (revert_result). A version left with no
    game loses its row, as a recount would give it none. False, and nothing written, when the rows did not count the
    match (a row missing: the caller rebuilds them)."""
    owner = {"ladder_id": match.ladder_id} if match.ladder_id else {"tournament_id": match.tournament_id}
    table = [SeatRow(match.pk, s.number, s.bot_version_id, s.score, s.rank, s.forfeited, match.round) for s in seats]
    rows = {row.bot_version_id: row for row in StandingsRow.objects.filter(
        **owner, bot_version_id__in=[seat.bot_version_id for seat in table])}
    if len(rows) != len(table):
        return False
    for seat in table:
        still = seat.round is not None and Seat.objects.filter(
            **{f"match__{name}": value for name, value in owner.items()}, match__round=seat.round,
            match__status=Match.Status.FINISHED, bot_version_id=seat.bot_version_id).exclude(
            match_id=match.pk).exists()
        _remove_game(rows[seat.bot_version_id], seat, table, round_kept=still)
    gone = [row.pk for row in rows.values() if row.games == 0]
    StandingsRow.objects.filter(pk__in=gone).delete()
    update_rows(StandingsRow, [row for row in rows.values() if row.games], ROW_FIELDS)
    counts = (Ladder.objects.filter(pk=match.ladder_id) if match.ladder_id
              else Tournament.objects.filter(pk=match.tournament_id or 0))
    counts.update(standings_matches=F("standings_matches") - 1)
    return True


def recount(competition: Competition) -> dict[int, StandingsRow]:
    """The rows as the finished seats make them (unsaved)."""
    rows: dict[int, StandingsRow] = {}
    games: dict[int, list[SeatRow]] = defaultdict(list)
    for seat in finished_seats(competition):
        games[seat.match_id].append(seat)
    for table in games.values():
        for seat in table:
            row = rows.setdefault(seat.bot_version_id,
                                  StandingsRow(**_owner(competition), bot_version_id=seat.bot_version_id))
            _add_game(row, seat, table)
    return rows


def _finished_matches(competition: Competition) -> int:
    owner = {"tournament": competition} if isinstance(competition, Tournament) else {"ladder": competition}
    return Match.objects.filter(**owner, status=Match.Status.FINISHED).count()


def _counted(competition: Competition) -> int:
    return type(competition).objects.filter(pk=competition.pk).values_list("standings_matches", flat=True).get()


def _add_game(row: StandingsRow, seat: SeatRow, table: list[SeatRow]) -> None:
    assert seat.rank is not None
    points = game_points(seat.rank, [s.rank or 0 for s in table])
    won = seat.rank == 1
    row.games += 1
    row.wins += won
    row.points += points
    row.score_total += seat.score or 0
    row.forfeits += seat.forfeited
    row.seats = [*row.seats, *([0, 0, 0.0] for _ in range(seat.number + 1 - len(row.seats)))]
    games, wins, seat_points = row.seats[seat.number]
    row.seats[seat.number] = [games + 1, wins + won, seat_points + points]
    if seat.round is not None:
        row.rounds[str(seat.round)] = row.rounds.get(str(seat.round), 0.0) + points
    for other in table:
        if other is not seat and other.rank is not None:
            result = list(row.head_to_head.get(str(other.bot_version_id), [0, 0, 0]))
            result[0 if seat.rank < other.rank else 1 if seat.rank == other.rank else 2] += 1
            row.head_to_head[str(other.bot_version_id)] = result


def _remove_game(row: StandingsRow, seat: SeatRow, table: list[SeatRow], round_kept: bool) -> None:
    """_add_game undone. Points are halves, so the sums come back exactly. round_kept: the version has another
    finished game in the seat's round, which keeps the round in its row (with 0 points, perhaps)."""
    assert seat.rank is not None
    points = game_points(seat.rank, [s.rank or 0 for s in table])
    won = seat.rank == 1
    row.games -= 1
    row.wins -= won
    row.points -= points
    row.score_total -= seat.score or 0
    row.forfeits -= seat.forfeited
    games, wins, seat_points = row.seats[seat.number]
    row.seats = [*row.seats[:seat.number], [games - 1, wins - won, seat_points - points], *row.seats[seat.number + 1:]]
    while row.seats and row.seats[-1][0] == 0:  # _add_game pads up to the highest seat played, no further
        row.seats.pop()
    if seat.round is not None:
        key = str(seat.round)
        if round_kept:
            row.rounds[key] -= points
        else:
            del row.rounds[key]
    for other in table:
        if other is not seat and other.rank is not None:
            key = str(other.bot_version_id)
            result = list(row.head_to_head[key])
            result[0 if seat.rank < other.rank else 1 if seat.rank == other.rank else 2] -= 1
            if any(result):
                row.head_to_head[key] = result
            else:
                del row.head_to_head[key]


def _values(row: StandingsRow) -> tuple[Any, ...]:
    return tuple(getattr(row, name) for name in ROW_FIELDS)


def standings_differences(competition: Competition) -> list[str]:
    """Where the competition's standings rows differ from a recount of its finished seats (empty when they agree)."""
    expected, finished = recount(competition), _finished_matches(competition)
    problems = []
    stored = StandingsRow.objects.filter(**_owner(competition)).select_related("bot_version__bot")
    for row in stored:
        recounted = expected.pop(row.bot_version_id, None)
        if recounted is None or _values(row) != _values(recounted):
            problems.append(f"standings of {row.bot_version.label}: live {_values(row)}, recounted "
                            f"{None if recounted is None else _values(recounted)}")
    problems.extend(f"standings of bot version {version_id}: no live row, recounted {_values(row)}"
                    for version_id, row in expected.items())
    counted = _counted(competition)
    if counted != finished:
        problems.append(f"standings count {counted} finished matches of {finished}")
    return problems


def rebuild_standings(competition: Competition) -> list[str]:
    """Set the competition's standings rows to a recount of its finished seats, under its row lock; return what was
    different."""
    with transaction.atomic():
        type(competition).objects.select_for_update().filter(pk=competition.pk).values_list("pk").get()
        problems = standings_differences(competition)
        if problems:
            rows, finished = recount(competition), _finished_matches(competition)
            StandingsRow.objects.filter(**_owner(competition)).delete()
            StandingsRow.objects.bulk_create(rows.values())
            type(competition).objects.filter(pk=competition.pk).update(standings_matches=finished)
    return problems


def _rows(competition: Competition) -> dict[int, StandingsRow]:
    """The competition's standings rows; recounted from its seats instead (nothing written) when they do not count
    every finished match: one finished other than by record_result (an administrator's edit, a restore, the
    validation ladder's smoke matches) until `manage.py recompute_ratings` rebuilds them."""
    finished = Count("matches", filter=Q(matches__status=Match.Status.FINISHED))
    counted, played = (type(competition).objects.filter(pk=competition.pk).annotate(finished=finished)
                       .values_list("standings_matches", "finished").get())
    if counted != played:
        return recount(competition)
    return {row.bot_version_id: row for row in StandingsRow.objects.filter(**_owner(competition))}


# --- the table -------------------------------------------------------------------------------------------------------


def competition_standings(competition: Competition) -> list[Standing]:
    """Every entrant's line, best first: from its entries, standings rows and ratings, one row each."""
    return _table(competition, _rows(competition))


def recounted_standings(competition: Competition) -> list[Standing]:
    """competition_standings from a recount of the finished seats (what the rows must give)."""
    return _table(competition, recount(competition))


def _table(competition: Competition, rows: dict[int, StandingsRow]) -> list[Standing]:
    table = {}
    for entry in _entries(competition):
        standing = table[entry.bot_version_id] = _standing(entry)
        if entry.bot_version_id in rows:
            _fill(standing, rows[entry.bot_version_id])
        if isinstance(entry, Entry) and isinstance(competition, Tournament):
            _add_byes(competition, standing, entry.byes)
    for rating in Rating.objects.filter(**_owner(competition)):
        if rating.bot_version_id in table:
            table[rating.bot_version_id].mu, table[rating.bot_version_id].sigma = rating.mu, rating.sigma
    return sorted(table.values(), key=_order_key(competition))


def _fill(standing: Standing, row: StandingsRow) -> None:
    standing.games, standing.wins, standing.points = row.games, row.wins, row.points
    standing.score_total, standing.forfeits = row.score_total, row.forfeits
    standing.seats = {number: SeatRecord(games, wins, points)
                      for number, (games, wins, points) in enumerate(row.seats) if games}
    standing.rounds = {int(number): points for number, points in row.rounds.items()}
    standing.head_to_head = {int(version): list(result) for version, result in row.head_to_head.items()}


def tournament_standings(tournament: Tournament) -> list[Standing]:
    return competition_standings(tournament)


def ladder_standings(ladder: Ladder) -> list[Standing]:
    return competition_standings(ladder)


def _standing(entry: Entry | LadderEntry) -> Standing:
    standing = Standing(entry.bot_version_id, entry.bot_version.label, withdrawn=entry.withdrawn_at is not None)
    if isinstance(entry, Entry):
        standing.eliminated_round = entry.eliminated_round
    return standing


def _add_byes(tournament: Tournament, standing: Standing, byes: list[int]) -> None:
    """A bye is worth a won set: (N-1) points a game of the set."""
    value = float((tournament.players_per_table - 1) * tournament.games_per_set)
    standing.byes = len(byes)
    standing.points += value * len(byes)
    for number in byes:
        standing.rounds[number] = standing.rounds.get(number, 0.0) + value


def _order_key(competition: Competition) -> Any:
    if isinstance(competition, Ladder):
        return lambda s: (-s.conservative, -s.points, s.name)
    if competition.format == Tournament.Format.SINGLE_ELIMINATION:
        far = 10**6
        return lambda s: (-(s.eliminated_round or far), -s.points, -s.conservative, s.name)
    return lambda s: (-s.points, -s.conservative, s.name)


def seat_wins(seats: QuerySet[Seat]) -> dict[int, tuple[int, int]]:
    """Per seat number: (wins, games) over these seats, counted by the database (a ladder has 100,000s)."""
    rows = (seats.order_by().values("number").annotate(games=Count("pk"), wins=Count("pk", filter=Q(rank=1)))
            .order_by("number"))
    return {row["number"]: (row["wins"], row["games"]) for row in rows}


def seat_win_rates(competition: Competition) -> dict[int, tuple[int, int]]:
    """Per seat number: (wins, games) over every finished game: the sum of the standings rows' seats."""
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for row in _rows(competition).values():
        for number, (games, wins, _) in enumerate(row.seats):
            totals[number][0] += wins
            totals[number][1] += games
    return {number: (wins, games) for number, (wins, games) in sorted(totals.items()) if games}


def game_seat_win_rates(game: str, players: int) -> dict[int, tuple[int, int]]:
    """Per seat number: (wins, games) over every finished game of this game at tables of `players`, anywhere: the
    sum of the standings rows' seats over its competitions of that table size, summed by the database (one row an
    entrant and competition is read, not a seat of every game: pages stay as fast on the millionth match)."""
    rows = StandingsRow.objects.filter(Q(ladder__game=game, ladder__players_per_match=players)
                                       | Q(tournament__game=game, tournament__players_per_table=players))
    sums = rows.aggregate(**{f"{i}_{j}": Sum(Cast(KT(f"seats__{i}__{j}"), IntegerField()))
                             for i in range(players) for j in (0, 1)})
    return {i: (sums[f"{i}_1"] or 0, sums[f"{i}_0"]) for i in range(players) if sums[f"{i}_0"]}


def ladder_seat_record(ladder: Ladder) -> list[list[int]]:
    """[games, wins] by seat number over the ladder's rated games: the sum of its ratings' seat records, summed by
    the database (one row, not a record per entrant to decode)."""
    seats = ladder.players_per_match
    columns = {f"{i}_{j}": Sum(Cast(KT(f"seat_record__{i}__{j}"), IntegerField()))
               for i in range(seats) for j in (0, 1)}
    sums = Rating.objects.filter(ladder=ladder).aggregate(**columns)
    return [[sums[f"{i}_0"] or 0, sums[f"{i}_1"] or 0] for i in range(seats)]


def tournament_scores(version_id: int) -> list[dict[str, Any]]:
    """A bot version's record in each tournament it entered: place, points, games, wins (for its page)."""
    scores = []
    for entry in Entry.objects.filter(bot_version_id=version_id).select_related("tournament").order_by("pk"):
        rows = competition_standings(entry.tournament)
        place, row = next((i, r) for i, r in enumerate(rows, 1) if r.version_id == version_id)
        scores.append({"tournament": entry.tournament_id, "name": entry.tournament.name,
                       "state": entry.tournament.state, "place": place, "of": len(rows), "points": row.points,
                       "games": row.games, "wins": row.wins})
    return scores


def _rates(rates: dict[int, tuple[int, int]]) -> dict[str, dict[str, float]]:
    return {str(n): {"wins": w, "games": g, "rate": w / g if g else 0.0} for n, (w, g) in rates.items()}


def standings_data(competition: Competition) -> dict[str, Any]:
    """Everything the API and the pages show, as plain JSON-able data."""
    kind = "tournament" if isinstance(competition, Tournament) else "ladder"
    data: dict[str, Any] = {
        "kind": kind, "id": competition.pk, "name": competition.name, "game": competition.game,
        "provisional_sigma": provisional_sigma(),
        "rows": [dict(s.to_dict(), place=place) for place, s in enumerate(competition_standings(competition), 1)],
        "seat_win_rates": _rates(seat_win_rates(competition)),
    }
    players = competition.players_per_table if isinstance(competition, Tournament) else competition.players_per_match
    data["game_seat_win_rates"] = _rates(game_seat_win_rates(competition.game, players))
    if isinstance(competition, Tournament):
        data.update(format=competition.format, state=competition.state, round=competition.current_round)
    return data


def standings_table(competition: Competition) -> Table:
    """A rich table: place, bot, games, wins, points, mean score, rating (provisional marked *), wins by seat."""
    if isinstance(competition, Tournament):
        title = f"{competition.name}: {competition.game}, {competition.get_format_display()}, {competition.state}"
    else:
        title = f"{competition.name}: {competition.game} ladder{' (paused)' if competition.paused else ''}"
    table = Table(title=title)
    for heading in ("#", "bot", "games", "wins", "points", "mean score", "rating (mu-3σ)", "mu", "sigma",
                    "wins by seat"):
        table.add_column(heading, justify="left" if heading in ("bot", "wins by seat") else "right")
    for place, s in enumerate(competition_standings(competition), start=1):
        name = s.name + (" (withdrawn)" if s.withdrawn else "") + (f" (out in round {s.eliminated_round})"
                                                                    if s.eliminated_round else "")
        by_seat = " ".join(f"{r.wins}/{r.games}" for _, r in sorted(s.seats.items()))
        table.add_row(str(place), name, str(s.games), str(s.wins), f"{s.points:g}", f"{s.mean_score:.1f}",
                      f"{s.conservative:.2f}{'*' if s.provisional else ''}", f"{s.mu:.2f}", f"{s.sigma:.2f}",
                      by_seat)
    rates = seat_win_rates(competition)
    if rates:
        table.caption = "wins by seat: " + ", ".join(
            f"seat {seat} {wins}/{games}" for seat, (wins, games) in rates.items()
        ) + f"; * provisional (sigma > {provisional_sigma():g})"
    return table
