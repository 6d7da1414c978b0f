"""What the pages show, read from the models: standings rows (from tournaments/standings.py), seat fairness,
filtered matches, a bot's record."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from tournaments.models import Bot, BotVersion, Ladder, Match, Rating, Seat, Tournament
from tournaments.numbers import MAX_ID, is_whole
from tournaments.pages.charts import Series
from tournaments.pages.round_pages import table_order
from tournaments.rating_rule import conservative, is_provisional
from tournaments.ratings import MODEL
from tournaments.standings import (
    competition_standings,
    game_seat_win_rates,
    ladder_seat_record,
    seat_win_rates,
)
from tournaments.system_ladders import VALIDATION_LADDER, internal_ladders
from tournaments.visibility import PRIVATE_LABEL, hidden_versions, seat_label, visible_bots


@dataclass
class Row:
    """One line of a standings table."""

    place: int
    name: str
    version_id: int
    bot_id: int | None
    games: int
    wins: int
    points: float | None
    mean_score: float | None
    mu: float
    sigma: float
    withdrawn: bool = False
    eliminated_round: int | None = None

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)

    @property
    def is_provisional(self) -> bool:
        return is_provisional(self.sigma, self.games)


@dataclass
class SeatRate:
    seat: int
    wins: int
    games: int

    @property
    def percent(self) -> float:
        return 100.0 * self.wins / self.games if self.games else 0.0


def competition_rows(tournament: Tournament) -> list[Row]:
    """A tournament's standings lines, with each bot's id for its link."""
    bots = dict(tournament.entry_set.values_list("bot_version_id", "bot_version__bot_id"))
    return [Row(place, s.name, s.version_id, bots.get(s.version_id), s.games, s.wins, s.points, s.mean_score,
                s.mu, s.sigma, s.withdrawn, s.eliminated_round)
            for place, s in enumerate(competition_standings(tournament), start=1)]


def ladder_rows(ladder: Ladder) -> list[Row]:
    """A ladder's lines from its ratings (rated games), as the API's table: every rated version, and every entrant
    not rated yet at the prior. Not from the seats: a busy ladder has hundreds of thousands."""
    columns = ("bot_version_id", "bot_version__bot__name", "bot_version__number", "bot_version__bot_id")
    rows = {version: Row(0, BotVersion.label_of(name, number), version, bot, games, wins, None, None, mu, sigma)
            for version, name, number, bot, games, wins, mu, sigma in Rating.objects.filter(ladder=ladder)
            .values_list(*columns, "games", "wins", "mu", "sigma")}
    for version, name, number, bot, withdrawn_at in ladder.entry_set.values_list(*columns, "withdrawn_at"):
        row = rows.setdefault(version, Row(0, BotVersion.label_of(name, number), version, bot, 0, 0, None, None,
                                           MODEL.mu, MODEL.sigma))
        row.withdrawn = withdrawn_at is not None
    ordered = sorted(rows.values(), key=lambda row: (-row.conservative, row.name))
    for place, row in enumerate(ordered, start=1):
        row.place = place
    return ordered


def shown_rows(user: Any, rows: list[Row]) -> list[Row]:
    """The rows with the private bots this user may not see unnamed and unlinked (tournaments.visibility)."""
    hidden = hidden_versions(user, [row.version_id for row in rows])
    for row in rows:
        if row.version_id in hidden:
            row.name, row.bot_id = PRIVATE_LABEL, None
    return rows


def seat_rates(competition: Tournament | Ladder) -> list[SeatRate]:
    """Wins and games per seat number, to show any first-player advantage: over a tournament's finished games, or
    a ladder's rated ones (from its ratings' seat records, as the API gives them)."""
    if isinstance(competition, Ladder):
        return [SeatRate(number, wins, games)
                for number, (games, wins) in enumerate(ladder_seat_record(competition)) if games]
    return [SeatRate(number, wins, games) for number, (wins, games) in seat_win_rates(competition).items()]


def game_seat_rates(game: str, players: int) -> list[SeatRate]:
    """The same over every finished game of this game at tables of this size, in any competition."""
    return [SeatRate(number, wins, games) for number, (wins, games) in game_seat_win_rates(game, players).items()]


@dataclass
class Table:
    """One table of a round: its entrants (bot version ids), the games its sets were played in, who went through."""

    entrants: tuple[int, ...]
    games: list[Match] = field(default_factory=list)
    advanced: list[str] = field(default_factory=list)  # elimination: the labels of the entrants who go on


@dataclass
class Round:
    number: int
    tables: list[Table]
    byes: list[str]  # labels of the entrants who sat out (a bye counts as a won table)
    bye_entrants: list[int] = field(default_factory=list)  # their bot version ids, in the same order


def rounds(tournament: Tournament, user: Any, numbers: Collection[int]) -> list[Round]:
    """These rounds in order, each with its tables (in the order of their numbers, sets kept together), its byes and,
    in single elimination, who advanced from each table."""
    entries = list(tournament.entry_set.select_related("bot_version__bot"))
    label = {e.bot_version_id: seat_label(user, e.bot_version) for e in entries}
    by_round: dict[int, dict[int | None, list[Match]]] = defaultdict(dict)
    for match in with_seats(tournament.matches.filter(round__in=list(numbers)).order_by("pk")):
        by_round[match.round or 0].setdefault(match.table, []).append(match)
    result = []
    for number in sorted(set(numbers)):
        tables = [Table(tuple(sorted({seat.bot_version_id for game in games for seat in game.seats.all()})), games)
                  for _, games in sorted(by_round[number].items(), key=lambda item: table_order(item[0]))]
        if tournament.format == Tournament.Format.SINGLE_ELIMINATION:
            out = {e.bot_version_id for e in entries if e.eliminated_round is not None and e.eliminated_round <= number}
            for table in tables:
                table.advanced = [label.get(v, "?") for v in table.entrants if v not in out] if all(
                    g.status == Match.Status.FINISHED for g in table.games) else []
        sat_out = [e.bot_version_id for e in entries if number in e.byes]
        result.append(Round(number, tables, [label[v] for v in sat_out], sat_out))
    return result


def champion(tournament: Tournament, user: Any) -> str | None:
    """The winner of a finished single elimination: the one entrant never eliminated nor withdrawn."""
    if tournament.format != Tournament.Format.SINGLE_ELIMINATION or tournament.state != Tournament.State.FINISHED:
        return None
    left = [e for e in tournament.entry_set.select_related("bot_version__bot")
            if e.eliminated_round is None and e.withdrawn_at is None]
    return seat_label(user, left[0].bot_version) if len(left) == 1 else None


def with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("ladder", "tournament").prefetch_related("seats__bot_version__bot")


def filter_matches(matches: QuerySet[Match], params: dict[str, Any], user: Any) -> QuerySet[Match]:
    """These matches by game, bot (name or id, of the bots this user may see), status and competition ("ladder:3"
    or "tournament:5"), newest first. The bot is a correlated EXISTS, not a join: no DISTINCT, so the database
    walks the id index and stops at a page (tournaments/pages/keyset.py)."""
    if params.get("game"):
        matches = matches.filter(game=params["game"])
    if params.get("status"):
        matches = matches.filter(status=params["status"])
    if params.get("bot"):
        bot = str(params["bot"])
        by_name = Q(bot_version__bot__name__iexact=bot)
        named = by_name | Q(bot_version__bot_id=int(bot)) if is_whole(bot) and int(bot) <= MAX_ID else by_name
        seats = Seat.objects.filter(named & visible_bots(user, "bot_version__bot__"), match=OuterRef("pk"))
        matches = matches.filter(Exists(seats))
    kind, _, pk = str(params.get("competition") or "").partition(":")
    if kind in ("ladder", "tournament") and is_whole(pk) and int(pk) <= MAX_ID:
        matches = matches.filter(**{f"{kind}_id": int(pk)})
    return with_seats(matches.order_by("-id"))


def competition_choices() -> list[tuple[str, str]]:
    ladders = [(f"ladder:{pk}", f"Ladder: {name}") for pk, name in Ladder.objects.values_list("pk", "name")]
    cups = [(f"tournament:{pk}", f"Tournament: {name}") for pk, name in Tournament.objects.values_list("pk", "name")]
    return ladders + cups


@dataclass
class Record:
    games: int = 0
    wins: int = 0
    forfeits: int = 0
    faults: int = 0
    rank_total: int = 0
    by_version: dict[int, list[int]] = field(default_factory=dict)

    @property
    def mean_rank(self) -> float | None:
        return self.rank_total / self.games if self.games else None


def bot_record(bot: Bot) -> Record:
    record = Record()
    seats = Seat.objects.filter(bot_version__bot=bot, match__status=Match.Status.FINISHED)
    for version_id, rank, faults, forfeited in seats.values_list("bot_version_id", "rank", "faults", "forfeited"):
        record.games += 1
        record.wins += rank == 1
        record.faults += faults
        record.forfeits += forfeited
        record.rank_total += rank or 0
        games_wins = record.by_version.setdefault(version_id, [0, 0])
        games_wins[0] += 1
        games_wins[1] += rank == 1
    return record


RATING_POINTS = 200  # the chart's most recent rated games: a page that reads a bot's whole history grows with it


def rating_history(version_ids: list[int]) -> list[Series]:
    """One series per competition and version (keyed by id: two competitions may share a name), the conservative
    rating after each of the bot's (these versions') last RATING_POINTS rated games, in the order they were rated.
    The versions by id, not through a join: the database then reads them off the index seat_version_match."""
    seats = (Seat.objects.filter(bot_version_id__in=version_ids, match__status=Match.Status.FINISHED,
                                 rating_mu_after__isnull=False, rating_sigma_after__isnull=False)
             .order_by("-match_id")
             .values_list("match__ladder_id", "match__tournament_id", "bot_version_id", "bot_version__number",
                          "match__ladder__name", "match__tournament__name", "rating_mu_before",
                          "rating_sigma_before", "rating_mu_after", "rating_sigma_after", "match__rating_seq",
                          "match_id"))
    series: dict[tuple[int | None, int | None, int], Series] = {}
    for (ladder, tournament, version, number, ladder_name, cup_name, mu_before, sigma_before, mu, sigma,
         *_) in sorted(seats[:RATING_POINTS], key=lambda seat: (seat[-2] or 0, seat[-1])):
        key = (ladder, tournament, version)
        if key not in series:
            series[key] = Series(f"{ladder_name or cup_name} (v{number})")
            if mu_before is not None and sigma_before is not None:
                series[key].points.append(conservative(mu_before, sigma_before))
        assert mu is not None and sigma is not None  # the query keeps rated seats only
        series[key].points.append(conservative(mu, sigma))
        series[key].games += 1
    labels = Counter(s.label for s in series.values())
    for (ladder_id, tournament_id, _), item in series.items():
        if labels[item.label] > 1:  # the same name twice: say which is which
            item.label += f" [ladder #{ladder_id}]" if ladder_id else f" [tournament #{tournament_id}]"
    return list(series.values())


def validation_match_id(version_id: int) -> int | None:
    """The version's latest kept smoke match (workers.validation: the upload plays seat 0), if any. The validation
    ladders' ids first (one a game): with them the database reads those ladders' matches off match_ladder_recent,
    where through the join it walked back through every match of every ladder."""
    ladders = list(Ladder.objects.filter(internal_ladders(), name__startswith=VALIDATION_LADDER)
                   .values_list("pk", flat=True))
    return (Match.objects.filter(ladder_id__in=ladders, seats__number=0, seats__bot_version_id=version_id)
            .order_by("-pk").values_list("pk", flat=True).first()) if ladders else None
