"""A tournament's results as a spectator reads them (docs/tournaments.md#formats-tables-of-2-to-6): a round robin as
a cross-table (bots by bots, who finished ahead of whom, linked to the tables where they met), and an elimination's
tables with each entrant's set score (games won in the set) for the bracket."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

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
    fed_by: list[str] = field(default_factory=list)  # elimination: anchors of the last round's sets and byes it seats
    is_bye: ClassVar[bool] = False

    @property
    def seated(self) -> tuple[int, ...]:
        return self.table.entrants


@dataclass
class ByeView:
    name: str
    anchor: str
    entrant: int
    fed_by: list[str] = field(default_factory=list)
    is_bye: ClassVar[bool] = True

    @property
    def seated(self) -> tuple[int, ...]:
        return (self.entrant,)


Slot = TableView | ByeView


@dataclass
class RoundView:
    number: int
    slots: list[Slot]  # its tables, then its byes; an elimination's in bracket order (bracket_order)


def goes_on(eliminated_round: int | None, number: int) -> bool:
    return eliminated_round is None or eliminated_round > number


def bracket_order(rounds: list[list[tuple[int, ...]]]) -> list[list[int]]:
    """For each round (its slots' entrants), the order to show its slots in: the last round as dealt, each earlier one
    by the first slot of the next round its entrants go on to, so that the slots feeding one set sit together and the
    lines between rounds do not cross (the rounds are dealt again from the seeds, docs/tournaments.md)."""
    orders = [list(range(len(slots))) for slots in rounds]
    for number in range(len(rounds) - 2, -1, -1):
        place = {v: position for position, index in enumerate(orders[number + 1])
                 for v in rounds[number + 1][index]}
        slots = rounds[number]
        orders[number].sort(key=lambda i: (min((place[v] for v in slots[i] if v in place), default=len(place)), i))
    return orders


def in_bracket_order(views: list[RoundView]) -> None:
    """Order each round's slots as a bracket is drawn and tell each slot which slots of the round before feed it."""
    orders = bracket_order([[slot.seated for slot in view.slots] for view in views])
    for view, order in zip(views, orders, strict=True):
        view.slots = [view.slots[i] for i in order]
    for before, view in zip(views, views[1:], strict=False):
        for slot in view.slots:
            slot.fed_by = [s.anchor for s in before.slots if set(s.seated) & set(slot.seated)]


def table_view(table: Table, anchor: str, number: int, names: dict[int, str], out: dict[int, int | None],
               knockout: bool) -> TableView:
    """A table with, per entrant, its set score (games won in the set; a shared first place counts for each) and
    whether it goes on (elimination, once the set is over)."""
    over = all(game.status == Match.Status.FINISHED for game in table.games)
    wins = dict.fromkeys(table.entrants, 0)
    for game in table.games:
        for seat in game.seats.all():
            if game.status == Match.Status.FINISHED and seat.rank == 1 and seat.bot_version_id in wins:
                wins[seat.bot_version_id] += 1
    entrants = [Entrant(names.get(v, "?"), wins[v], knockout and over and goes_on(out.get(v), number))
                for v in table.entrants]
    entrants.sort(key=lambda e: (not e.through, -e.wins, e.name))
    return TableView(table, anchor, entrants)


def round_views(tournament: Tournament, rounds: list[Round], rows: list[Row]) -> list[RoundView]:
    """The rounds with each table's anchor and set scores (table_view) and each bye; an elimination's in bracket
    order, each slot with the slots of the round before that feed it (in_bracket_order)."""
    names = {row.version_id: row.name for row in rows}
    out = dict(tournament.entry_set.values_list("bot_version_id", "eliminated_round"))
    knockout = tournament.format == Tournament.Format.SINGLE_ELIMINATION
    views = []
    for round_ in rounds:
        slots: list[Slot] = [table_view(table, table_anchor(round_.number, index), round_.number, names, out, knockout)
                             for index, table in enumerate(round_.tables, start=1)]
        slots += [ByeView(name, f"bye-{round_.number}-{index}", entrant)
                  for index, (name, entrant) in enumerate(zip(round_.byes, round_.bye_entrants, strict=True), start=1)]
        views.append(RoundView(round_.number, slots))
    if knockout:
        in_bracket_order(views)
    return views
