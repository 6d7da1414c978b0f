"""A tournament's results as a spectator reads them (docs/tournaments.md#formats-tables-of-2-to-6): a round robin as
a cross-table (bots by bots, who finished ahead of whom, linked to the tables where they met), and an elimination's
tables with each entrant's set score (games won in the set) for the bracket."""

from __future__ import annotations

from dataclasses import dataclass, field

from tournaments.models import Match, Tournament
from tournaments.pages.queries import Round, Row, Table
from tournaments.pages.round_pages import table_anchor
from tournaments.standings import competition_standings


@dataclass
class Cell:
    """Row's bot against the column's: games it finished ahead of, level with and behind it, and where they met."""

    opponent: str
    ahead: int = 0
    level: int = 0
    behind: int = 0
    tables: list[str] = field(default_factory=list)  # links to the tables they shared, in round order

    @property
    def outcome(self) -> str:
        """"win", "loss" or "draw" over their games, "" before any."""
        if not self.ahead + self.level + self.behind:
            return ""
        return "win" if self.ahead > self.behind else "loss" if self.ahead < self.behind else "draw"


@dataclass
class CrossRow:
    row: Row
    cells: list[Cell | None]  # one per row of the table, in the same order; None on the diagonal


def cross_table(tournament: Tournament, rows: list[Row], met: dict[tuple[int, int], list[str]]) -> list[CrossRow]:
    """The round robin's cross-table in standings order (rows as the reader may see them, tournaments.visibility),
    each cell linked to the tables where the two met (round_pages.meetings)."""
    standings = {s.version_id: s for s in competition_standings(tournament)}
    result = []
    for row in rows:
        record = standings[row.version_id].head_to_head if row.version_id in standings else {}
        cells: list[Cell | None] = []
        for other in rows:
            if other.version_id == row.version_id:
                cells.append(None)
                continue
            ahead, level, behind = record.get(other.version_id, [0, 0, 0])
            cells.append(Cell(other.name, ahead, level, behind, met.get((row.version_id, other.version_id), [])))
        result.append(CrossRow(row, cells))
    return result


@dataclass
class Entrant:
    name: str
    wins: int  # its set score: games won in the set
    through: bool  # elimination: it goes on (once the set is over)


@dataclass
class TableView:
    table: Table
    anchor: str
    entrants: list[Entrant]  # the ones going on first, then by set score


@dataclass
class RoundView:
    number: int
    tables: list[TableView]
    byes: list[str]


def goes_on(eliminated_round: int | None, number: int) -> bool:
    return eliminated_round is None or eliminated_round > number


def round_views(tournament: Tournament, rounds: list[Round], rows: list[Row]) -> list[RoundView]:
    """The rounds with each table's anchor and, per entrant, its set score (games won in the set; a shared first
    place counts for each) and whether it goes on (elimination, once the set is over)."""
    names = {row.version_id: row.name for row in rows}
    out = dict(tournament.entry_set.values_list("bot_version_id", "eliminated_round"))
    knockout = tournament.format == Tournament.Format.SINGLE_ELIMINATION
    views = []
    for round_ in rounds:
        tables = []
        for index, table in enumerate(round_.tables, start=1):
            over = all(game.status == Match.Status.FINISHED for game in table.games)
            wins = dict.fromkeys(table.entrants, 0)
            for game in table.games:
                for seat in game.seats.all():
                    if game.status == Match.Status.FINISHED and seat.rank == 1 and seat.bot_version_id in wins:
                        wins[seat.bot_version_id] += 1
            entrants = [Entrant(names.get(v, "?"), wins[v], knockout and over and goes_on(out.get(v), round_.number))
                        for v in table.entrants]
            entrants.sort(key=lambda e: (not e.through, -e.wins, e.name))
            tables.append(TableView(table, table_anchor(round_.number, index), entrants))
        views.append(RoundView(round_.number, tables, round_.byes))
    return views
