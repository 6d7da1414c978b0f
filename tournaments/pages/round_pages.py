"""A tournament's rounds a page at a time: consecutive rounds up to GAMES_PER_PAGE games (at least one round), chosen
by `?round=`, so the page of a tournament of thousands of games renders what one of a hundred does. The standings and
the cross-table stay whole: they grow with the entrants, not with the games (docs/tournaments.md)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Min
from django.http import Http404

from tournaments.api.common import is_whole
from tournaments.models import Seat, Tournament

GAMES_PER_PAGE = 200
ROUND = "round"


class BadRound(ValueError):
    """`?round=` is not a round's number."""


@dataclass
class RoundPage:
    """The rounds one page shows, the first rounds of the pages before and after it, and the whole's size."""

    numbers: list[int]
    earlier: int | None
    later: int | None
    rounds: int  # how many rounds the tournament has
    final: int | None  # the number of its last round
    games: int  # how many games, in all rounds
    chosen: bool  # the reader asked for these rounds (`?round=`): the folded rounds open

    @property
    def last_round(self) -> int | None:
        return self.numbers[-1] if self.numbers else None

    def href(self, number: int, anchor: str) -> str:
        """A link to a table: its anchor on this page, or the page of its round."""
        return f"#{anchor}" if number in self.numbers else f"?{ROUND}={number}#{anchor}"


def table_anchor(round_number: int, index: int) -> str:
    """The id of a table on the tournament page (index from 1 within its round, in the order of table numbers)."""
    return f"table-{round_number}-{index}"


def table_order(table: int | None) -> tuple[bool, int]:
    """Tables of a round in the order of their numbers (a match without one last)."""
    return table is None, table or 0


def group_rounds(sizes: list[tuple[int, int]], budget: int) -> list[list[int]]:
    """Consecutive rounds (number, games) in pages of at most `budget` games, a bigger round alone on its page."""
    groups: list[list[int]] = []
    total = 0
    for number, games in sizes:
        if not groups or total + games > budget:
            groups.append([])
            total = 0
        groups[-1].append(number)
        total += games
    return groups


def round_sizes(tournament: Tournament) -> list[tuple[int, int]]:
    """Every round's number and games, in order, rounds of byes only included: one row a round from the database."""
    counts = dict(tournament.matches.order_by().values_list("round").annotate(games=Count("id")))
    byes = {number for numbers in tournament.entry_set.values_list("byes", flat=True) for number in numbers}
    return [(number, counts.get(number, 0)) for number in sorted(set(counts) | byes)]


def round_page(tournament: Tournament, raw: str | None) -> RoundPage:
    """The page of `?round=` (the first page when absent); raises BadRound when it is no number, Http404 when the
    tournament has no such round."""
    sizes = round_sizes(tournament)
    groups = group_rounds(sizes, GAMES_PER_PAGE)
    index = 0
    if raw:
        if not is_whole(raw):
            raise BadRound(f"round must be a round's number, got {raw!r}")
        found = next((i for i, group in enumerate(groups) if int(raw) in group), None)
        if found is None:
            raise Http404(f"tournament {tournament.pk} has no round {raw}")
        index = found
    numbers = groups[index] if groups else []
    earlier = groups[index - 1][0] if index > 0 else None
    later = groups[index + 1][0] if index + 1 < len(groups) else None
    final = sizes[-1][0] if sizes else None
    return RoundPage(numbers, earlier, later, len(sizes), final, sum(games for _, games in sizes), bool(raw))


def meetings(tournament: Tournament, page: RoundPage) -> dict[tuple[int, int], list[str]]:
    """For each ordered pair of entrants, links to the tables where they met, in round order: from each table's first
    game (one row a table, read off the index of the tournament's rounds) and its seats, whatever the number of games
    in each set."""
    firsts = dict(tournament.matches.order_by().values_list("round", "table").annotate(first=Min("id"))
                  .values_list("first", "round"))
    tables: dict[tuple[int, int | None], set[int]] = defaultdict(set)
    for number, table, version in (Seat.objects.filter(match_id__in=list(firsts)).order_by()
                                   .values_list("match__round", "match__table", "bot_version_id")):
        tables[(number or 0, table)].add(version)
    met: dict[tuple[int, int], list[str]] = {}
    by_round: dict[int, list[int | None]] = defaultdict(list)
    for number, table in sorted(tables, key=lambda key: (key[0], table_order(key[1]))):
        by_round[number].append(table)
        href = page.href(number, table_anchor(number, len(by_round[number])))
        for a in tables[(number, table)]:
            for b in tables[(number, table)]:
                if a != b:
                    met.setdefault((a, b), []).append(href)
    return met
