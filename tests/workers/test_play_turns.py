"""The hand-off in the match loop (workers/play.py, docs/bots.md "The freezer"): at every decision, every seat with a
process but the one deciding is paused, and the loop pauses only the seat that held the decision before."""

from __future__ import annotations

from typing import Any

from engine.core import Decision
from workers.play import play_game
from workers.seats import InProcessSeat, Reply


class Watched(InProcessSeat):
    """A seat with a process, as the loop sees it: paused when told, running again once it decides."""

    def __init__(self, seat: int, seats: list[Watched]) -> None:
        super().__init__("random", "evolution", seat)
        self.seats, self.paused, self.idle_pauses, self.decisions = seats, False, 0, 0

    @property
    def has_process(self) -> bool:
        return True

    def settle(self, deadline: float) -> None:
        self.paused = True  # frozen once booted, as a sandboxed seat is

    def pause(self) -> None:
        self.idle_pauses += self.paused  # told again while still paused: a call for nothing
        self.paused = True

    def decide(self, seq: int, view: dict[str, Any] | None, decision: Decision, bank_ms: int) -> Reply:
        others = [seat for seat in self.seats if seat is not self]
        assert all(seat.paused for seat in others), (seq, [seat.paused for seat in self.seats])
        self.paused = False  # it holds the decision, and waits unfrozen after its reply until it is paused again
        self.decisions += 1
        return super().decide(seq, view, decision, bank_ms)


def test_every_other_seat_is_paused_at_each_decision_and_only_the_last_holder_is_paused_again() -> None:
    seats: list[Watched] = []
    seats.extend(Watched(seat, seats) for seat in range(4))
    result = play_game("evolution", 4, 5, {}, seats)
    assert result.faults == [0, 0, 0, 0] and all(seat.decisions > 20 for seat in seats)
    # The first hand-off pauses every seat but the first to decide (settled, so paused already); none after it.
    assert sum(seat.idle_pauses for seat in seats) == 3
