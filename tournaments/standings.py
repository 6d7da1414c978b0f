"""Tournament standings from the recorded seats: games, wins, points, mean score, rating, and seat fairness."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rich.table import Table

from tournaments.models import Match, Rating, Seat, Tournament


@dataclass
class Standing:
    """One entrant's line. points: one per opponent finished ahead of, half per tie, summed over games."""

    version_id: int
    name: str
    games: int = 0
    wins: int = 0
    points: float = 0.0
    score_total: int = 0
    forfeits: int = 0
    mu: float = 25.0
    sigma: float = 25.0 / 3
    seat_games: dict[int, int] = field(default_factory=dict)
    seat_wins: dict[int, int] = field(default_factory=dict)

    @property
    def mean_score(self) -> float:
        return self.score_total / self.games if self.games else 0.0

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


def finished_seats(tournament: Tournament) -> list[Seat]:
    return list(
        Seat.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
        .select_related("bot_version__bot")
        .order_by("match_id", "number")
    )


def tournament_standings(tournament: Tournament) -> list[Standing]:
    """Best first: by points, then conservative rating, then name."""
    table: dict[int, Standing] = {}
    for entry in tournament.entries.select_related("bot").order_by("pk"):
        table[entry.pk] = Standing(entry.pk, entry.label)
    by_match: dict[int, list[Seat]] = defaultdict(list)
    for seat in finished_seats(tournament):
        by_match[seat.match_id].append(seat)
    for seats in by_match.values():
        for seat in seats:
            _add_game(table[seat.bot_version_id], seat, seats)
    for rating in Rating.objects.filter(tournament=tournament):
        if rating.bot_version_id in table:
            table[rating.bot_version_id].mu, table[rating.bot_version_id].sigma = rating.mu, rating.sigma
    return sorted(table.values(), key=lambda s: (-s.points, -s.conservative, s.name))


def _add_game(standing: Standing, seat: Seat, seats: list[Seat]) -> None:
    assert seat.rank is not None and seat.score is not None
    standing.games += 1
    standing.wins += seat.rank == 1
    standing.score_total += seat.score
    standing.forfeits += seat.forfeited
    standing.points += sum(1.0 if seat.rank < o.rank else 0.5 if seat.rank == o.rank else 0.0
                           for o in seats if o is not seat and o.rank is not None)
    standing.seat_games[seat.number] = standing.seat_games.get(seat.number, 0) + 1
    standing.seat_wins[seat.number] = standing.seat_wins.get(seat.number, 0) + (seat.rank == 1)


def seat_win_rates(tournament: Tournament) -> dict[int, tuple[int, int]]:
    """Per seat number: (wins, games), so organisers can see any first-player advantage (ARCHITECTURE §7)."""
    rates: dict[int, tuple[int, int]] = {}
    for seat in finished_seats(tournament):
        wins, games = rates.get(seat.number, (0, 0))
        rates[seat.number] = (wins + (seat.rank == 1), games + 1)
    return dict(sorted(rates.items()))


def standings_table(tournament: Tournament) -> Table:
    table = Table(title=f"{tournament.name}: {tournament.game}, {tournament.get_format_display()}")
    for heading in ("#", "bot", "games", "wins", "points", "mean score", "rating (mu-3σ)", "mu", "sigma"):
        table.add_column(heading, justify="left" if heading == "bot" else "right")
    for place, s in enumerate(tournament_standings(tournament), start=1):
        table.add_row(str(place), s.name, str(s.games), str(s.wins), f"{s.points:g}", f"{s.mean_score:.1f}",
                      f"{s.conservative:.2f}", f"{s.mu:.2f}", f"{s.sigma:.2f}")
    rates = seat_win_rates(tournament)
    if rates:
        table.caption = "wins by seat: " + ", ".join(
            f"seat {seat} {wins}/{games}" for seat, (wins, games) in rates.items()
        )
    return table
