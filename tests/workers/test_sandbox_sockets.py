"""Socket buffers are memory too (docs/bots.md, "Seccomp"): a bot may not hold more of the host's memory than its
seat's limit through them. On cgroup v1 the memory of inet and netlink sockets' buffers is not charged to the seat's
group: before the seccomp filter refused those families, the bot below (tests/workers/bots/socket_hog.py) held 581 to
610 MiB of the host's TCP, UDP or netlink buffers against a 256 MiB limit and played on. Unix socket pairs are
charged: that seat is stopped for its memory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_sandbox import GAME, assert_contained, faults, moves
from test_sandbox_groups import LIMIT, _play, _seat, worker_unharmed  # noqa: F401 - the fixture, used here too

from workers.sandbox.config import SandboxConfig
from workers.seats import Clock, InProcessSeat, Reply

pytestmark = [pytest.mark.sandbox]

CONFIG = SandboxConfig(startup_ms=1500, group_memory_bytes=LIMIT)
CLOCK = Clock(move_ms=1000, bank_ms=10_000)


def _sockstat_bytes(proto: str) -> int:
    """The host's TCP or UDP socket memory (/proc/net/sockstat counts every namespace's), in bytes."""
    found = re.search(rf"^{proto}: .* mem (\d+)$", Path("/proc/net/sockstat").read_text(), re.M)
    assert found, proto
    return int(found.group(1)) * 4096


def _meminfo(field: str) -> int:
    found = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    assert found, field
    return int(found.group(1)) << 10


def _hog(kind: str, host_bytes: Any) -> tuple[Any, Any, int]:
    """Play the socket hog of this kind against a built-in; the most host_bytes() grew over its start, read at each
    of the built-in's decisions."""
    seat = _seat("socket_hog.py", CONFIG, **{"kind.txt": kind.encode()})
    base, most = host_bytes(), [0]

    class Watch(InProcessSeat):
        def decide(self, seq: int, view: Any, decision: Any, bank_ms: int) -> Reply:
            most[0] = max(most[0], host_bytes() - base)
            return super().decide(seq, view, decision, bank_ms)

    result = _play(seat, Watch("random", GAME, 3), clock=CLOCK)
    assert_contained(result, seat)
    return result, seat, most[0]


@pytest.mark.parametrize(("kind", "measure"), [("tcp", "TCP"), ("udp", "UDP"), ("netlink", "SUnreclaim")])
def test_a_bot_cannot_pin_host_memory_in_inet_or_netlink_socket_buffers(kind: str, measure: str) -> None:
    host = (lambda: _meminfo(measure)) if measure == "SUnreclaim" else (lambda: _sockstat_bytes(measure))
    result, _, grew = _hog(kind, host)
    assert f"sockets: refused {kind}: PermissionError" not in result.logs[0]
    assert re.search(rf"^sockets: refused {kind}: OSError errno=97$", result.logs[0], re.M), result.logs[0][-500:]
    assert grew < LIMIT, f"the host's {measure} memory grew by {grew >> 20} MiB"
    assert faults(result) == [] and len(moves(result)) > 10  # refused, it plays on


def test_unix_socket_buffers_are_charged_to_the_seat() -> None:
    result, _, grew = _hog("unix", lambda: _meminfo("SUnreclaim"))
    assert "sockets: refused" not in result.logs[0]
    assert "oom" in faults(result), (faults(result), result.logs[0][-500:])
    assert grew < LIMIT + (64 << 20), f"the host's unreclaimable memory grew by {grew >> 20} MiB"
