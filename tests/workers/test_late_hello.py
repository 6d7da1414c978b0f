"""A hello that comes after a bot's first reply cannot start its history (protocol 3): its decides carry neither
events nor a context, never a stale one. The match loop stops handing events to a seat once it wants none."""

from __future__ import annotations

import json
import shutil

import pytest

from workers.play import play_game
from workers.sandbox.config import SandboxConfig
from workers.sandbox.seat import SandboxedSeat
from workers.seats import Clock, InProcessSeat

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed"),
]

LATE_HELLO = """\
import json, sys
first, logged = True, 0
for line in sys.stdin:
    m = json.loads(line)
    if m['type'] == 'decide':
        if logged < 8:
            logged += 1
            sys.stderr.write('CTX ' + json.dumps({'seq': m['seq'], 'context': m.get('context'),
                                                  'events': m.get('events')}) + '\\n')
        print(json.dumps({'seq': m['seq'], 'choice': 0}), flush=True)
        if first:  # its hello, asking for its history, after its first reply
            print(json.dumps({'type': 'hello', 'history': True}), flush=True)
            first = False
    elif m['type'] == 'result':
        break
"""


def test_a_hello_after_the_first_reply_starts_no_history() -> None:
    seat = SandboxedSeat(LATE_HELLO.encode(), "main.py", SandboxConfig(startup_ms=3000))
    result = play_game("evolution", 2, 3, {}, [seat, InProcessSeat("greedy", "evolution", 1)],
                       clock=Clock(move_ms=500, bank_ms=2000))
    logged = [json.loads(line[4:]) for line in result.logs[0].splitlines() if line.startswith("CTX ")]
    assert len(logged) == 8, result.logs[0]
    assert all(entry["context"] is None and entry["events"] is None for entry in logged), logged
    assert not result.faults[0] and not result.forfeited[0], result
