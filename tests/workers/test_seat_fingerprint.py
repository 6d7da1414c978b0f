"""A seat cannot tell its validation from a real match, nor name its version or match (docs/bots.md, "What a seat can
observe"). The hostile bot (tests/workers/bots/fingerprint.py) writes all it can read to its log; it plays once in
its version's validation and once in a ladder match, and the two fingerprints must be equal, apart from the
documented, non-identifying differences that `normalized` removes."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tournaments.bot_lifecycle import upload_bot_version
from tournaments.models import BotVersion, Ladder, Match
from tournaments.new_matches import create_match
from tournaments.pages.queries import validation_match_id
from workers.runner import run_match
from workers.sandbox.warm_pool import POOL
from workers.validation import validate_version

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

BOT = Path(__file__).resolve().parent / "bots" / "fingerprint.py"
SEAT_DIR = re.compile(r"/ludus-[a-z0-9_]{8}/")  # a seat's host dir: random, as tempfile.mkdtemp names it
# Lines of /proc/self/status that move as the interpreter runs (memory, context switches) or name the leased uid.
MOVING_STATUS = re.compile(r"^(Vm|Rss|Hugetlb|voluntary_|nonvoluntary_|Uid|Gid|Cpus_allowed|Mems_allowed)")


def fingerprint(log: str) -> dict[str, Any]:
    lines = [line for line in log.splitlines() if line.startswith("fingerprint: ")]
    assert len(lines) == 1, log
    found: dict[str, Any] = json.loads(lines[0].removeprefix("fingerprint: "))
    return found


def normalized(seen: dict[str, Any]) -> dict[str, Any]:
    """The fingerprint without what docs/bots.md lists as differing from seat to seat and naming nothing: the leased
    uid, the random seat dir, mount and inode numbers, time-varying host counters, which CPU a match is pinned to."""
    out: dict[str, Any] = _masked(seen, seen["ids"][0])
    out["mountinfo"] = [" ".join(line.split()[3:]) for line in out["mountinfo"].splitlines()]  # ids, device numbers
    out["stat"] = [line.split()[0] for line in out["stat"].splitlines()]  # host counters: their names only
    out["loadavg"] = out["uptime"] = None
    out["status"] = [line for line in out["status"].splitlines() if not MOVING_STATUS.match(line)]
    out["affinity"] = len(out["affinity"])
    for key in ("stat_bot", "stat_tmp", "stat_sdk", "stat_main"):
        if isinstance(out[key], dict):
            out[key] = {k: v for k, v in out[key].items() if k not in ("ino", "dev")}
    out["fds"] = {fd: re.sub(r"\[\d+\]", "[N]", link) for fd, link in out["fds"].items()}
    out["ns"] = {name: re.sub(r"\[\d+\]", "[N]", link) for name, link in out["ns"].items()}
    return out


def _masked(value: Any, uid: int) -> Any:
    """value with the seat's random dir and its leased uid replaced, wherever they appear."""
    if isinstance(value, dict):
        return {key: _masked(item, uid) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item, uid) for item in value]
    if isinstance(value, str):
        return re.sub(rf"\b{uid}\b", "UID", SEAT_DIR.sub("/ludus-SEAT/", value))
    return "UID" if value == uid and not isinstance(value, bool) else value


def seat_log(match: Match, number: int) -> str:
    return str(match.seats.get(number=number).log)


@pytest.fixture(params=["0", "2"], ids=["cold", "warm"])
def warm_seats(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """Without warm seats, and with them: a validation's hello offers reuse as a match's does."""
    settings.LUDUS_WARM_SEATS = int(request.param)
    try:
        yield request.param
    finally:
        POOL.clear()


@pytest.mark.django_db
def test_a_seat_cannot_tell_its_validation_from_a_real_match(alice: Any, builtin_versions: dict[str, Any],
                                                             warm_seats: str) -> None:
    version = upload_bot_version(alice, "spy", "evolution", "fingerprint.py", BOT.read_bytes(), dispatch=False)
    assert validate_version(version.pk) == BotVersion.Status.ACTIVE
    validation = Match.objects.get(pk=validation_match_id(version.pk))
    ladder = Ladder.objects.create(name="real", game="evolution", players_per_match=3)  # as many as validation's
    real = create_match(ladder, [version, builtin_versions["random"], builtin_versions["greedy"]], seed=11)
    assert run_match(real.pk) == "finished"

    in_validation, in_match = fingerprint(seat_log(validation, 0)), fingerprint(seat_log(real, 0))
    for seen in (in_validation, in_match):
        text = SEAT_DIR.sub("/ludus-<random>/", json.dumps(seen))  # its 8 random letters may spell "-mx" or "m12"
        for name in (f"bv{version.pk}", f"m{validation.pk}", f"m{real.pk}", "-mx", f"-{version.pk}-",
                     version.sha256[:12], str(alice.username)):
            assert name not in text, f"the seat can read {name!r}"
        assert SEAT_DIR.search(seen["mountinfo"]), "the seat dir is named at random, and by nothing else"
    assert normalized(in_validation) == normalized(in_match)
    assert in_match["hello"].get("reuse", False) is (warm_seats != "0")
