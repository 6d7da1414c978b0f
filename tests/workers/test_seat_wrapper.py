"""One delegating seat wrapper (workers/seats.py SeatWrapper): TimedSeat and RecordingSeat write only what they add,
and every other member of a seat, the optional ones too, is the wrapped player's."""

from __future__ import annotations

from typing import Any

import pytest

from workers.runner import TimedSeat, Timings
from workers.seats import SeatPlayer, SeatWrapper
from workers.validation import RecordingSeat


class Recorder:
    """A seat that answers every member with its own name, and records the calls it gets."""

    def __init__(self, wants_events: bool) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.wants_events = wants_events
        self.needs_view = True
        self.has_process = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args: Any) -> str:
            self.calls.append((name, args))
            return name

        return call


MEMBERS = ["log", "close", "settle", "pause", "send_result", "catch_up", "add_events", "set_context"]


@pytest.mark.parametrize("wrap", [lambda inner: TimedSeat(inner, Timings()), RecordingSeat], ids=["timed", "recording"])
@pytest.mark.parametrize("wants_events", [True, False])
def test_a_wrapper_hands_every_member_it_does_not_add_to_the_wrapped_seat(wrap: Any, wants_events: bool) -> None:
    inner = Recorder(wants_events)
    seat: SeatPlayer = wrap(inner)
    assert isinstance(seat, SeatWrapper)
    for name in MEMBERS:
        assert getattr(seat, name)(name, 1) == name
    assert inner.calls == [(name, (name, 1)) for name in MEMBERS]
    assert seat.needs_view is True and seat.has_process is True
    # The match loop hands events to a seat only when it asked for them (workers/play.py): a wrapper says what its
    # seat said, never "yes" for a seat that did not ask.
    assert getattr(seat, "wants_events", False) is wants_events


def test_a_wrapper_of_a_seat_without_an_optional_member_has_none_either() -> None:
    from workers.seats import InProcessSeat

    seat = RecordingSeat(InProcessSeat("random", "evolution", 1))
    assert getattr(seat, "wants_events", False) is False
    with pytest.raises(AttributeError):
        seat.add_events([])  # type: ignore[attr-defined]
