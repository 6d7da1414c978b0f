"""The engine in every seat: a sandboxed bot imports the engine that plays its match, and only that one."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.registry import load_game
from workers.play import play_game
from workers.sandbox.config import SandboxConfig
from workers.sandbox.seat import SandboxedSeat
from workers.sandbox.warm_pool import POOL
from workers.sandbox_settings import make_sandboxed_seat
from workers.seats import Clock, InProcessSeat

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]

CONFIG = SandboxConfig(startup_ms=3000)
CLOCK = Clock(move_ms=500, bank_ms=2000)

# A bot that ships an `engine` and a `ludus` of its own (a forged rules version), tries to write to the bound engine,
# and looks for any other copy of it on the sandbox's file system; at its first decision it prints what it found.
PROBE = r'''
import errno, json, os, sys
import engine
import ludus
from ludus import sim

bot = ludus.Bot()
seen = []

def writes():
    results = []
    for attempt in (lambda: open("/ludus/engine/registry.py", "a"), lambda: open("/ludus/engine/forged.py", "w"),
                    lambda: os.mkdir("/ludus/engine/forged"), lambda: os.remove("/ludus/engine/core.py"),
                    lambda: os.rename("/ludus/engine", "/ludus/old")):
        try:
            attempt()
            results.append("written")
        except OSError as exc:
            results.append(errno.errorcode[exc.errno])
    return results

def copies():
    found = []
    for top in ("/usr", "/lib", "/tmp", "/bot", "/ludus", "/dev"):
        for root, dirs, files in os.walk(top):
            if "registry.py" in files and os.path.basename(root) == "engine":
                found.append(root)
    return sorted(found)

def act(view, decision):
    if not seen:
        game = sim.load_game(bot.hello["game"])
        seen.append(1)
        print("PROBE " + json.dumps({
            "engine": engine.__file__, "ludus": ludus.__file__, "forged": hasattr(engine, "FORGED"),
            "rules_version": game.rules_version, "hello_rules_version": bot.hello.get("rules_version"),
            "bot_game_rules_version": bot.game.rules_version, "writes": writes(), "copies": copies(),
            "path": sys.path[:2]}), file=sys.stderr, flush=True)
    return 0

ludus.run(act, bot=bot)
'''
FORGED_ENGINE = 'FORGED = True\ndef load_game(*a, **k):\n    raise SystemExit("the forged engine")\n'
FORGED_LUDUS = 'FORGED = True\nraise SystemExit("the forged SDK")\n'


def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def _probe(log: str) -> dict[str, object]:
    line = next(line for line in log.splitlines() if line.startswith("PROBE "))
    found: dict[str, object] = json.loads(line[len("PROBE "):])
    return found


def test_a_bot_can_only_ever_load_the_engine_of_its_match() -> None:
    upload = _zip({"main.py": PROBE, "engine/__init__.py": FORGED_ENGINE, "engine/registry.py": FORGED_ENGINE,
                   "ludus.py": FORGED_LUDUS})
    seat = SandboxedSeat(upload, "probe.zip", CONFIG)
    result = play_game("evolution", 2, 3, {}, [seat, InProcessSeat("greedy", "evolution", 1)], clock=CLOCK)
    assert not any(a.get("fault") for a in result.actions), result.logs[0]
    probe = _probe(result.logs[0])
    assert probe["engine"] == "/ludus/engine/__init__.py" and probe["ludus"] == "/ludus/ludus.py"
    assert probe["forged"] is False
    version = load_game("evolution").rules_version
    assert probe["rules_version"] == probe["hello_rules_version"] == probe["bot_game_rules_version"] == version
    writes = probe["writes"]
    assert isinstance(writes, list) and len(writes) == 5 and set(writes) <= {"EROFS", "EACCES"}, writes
    assert probe["copies"] == ["/bot/engine", "/ludus/engine"]  # the bot's own upload, and the bound engine
    assert probe["path"] == ["/ludus", "/bot"]


# A bot of protocol 3: at each decision it prints the length and digest of the history the SDK kept, and whether a
# determinization from it shows exactly its view and its options.
HISTORIAN = r'''
import hashlib, json, sys
import ludus

bot = ludus.Bot()
count = []

def act(view, decision):
    count.append(1)
    if bot.context is None:  # a first decide sent before the engine read this bot's hello (docs/bots.md)
        print("H skip", file=sys.stderr, flush=True)
        return 0
    world = bot.determinize(view, len(count))
    same = world.view(bot.seat) == view and world.decision().options == decision["options"]
    digest = hashlib.sha256(json.dumps(bot.history, sort_keys=True).encode()).hexdigest()[:16]
    print(f"H {len(bot.history)} {digest} {'same' if same else 'DIFFERENT'}", file=sys.stderr, flush=True)
    return 0

ludus.run(act, bot=bot)
'''


def _assert_histories(printed: list[str], expected: list[str]) -> None:
    """The history line of each decision as the replay gives it; only the first may be a skip: a seat's first decide
    goes out without events and context when the engine has not read the bot's hello yet (the next carries them all)."""
    assert len(printed) == len(expected), (printed, expected)
    assert printed[1:] == expected[1:] and printed[0] in (expected[0], "H skip"), (printed, expected)


def _expected_histories(game_name: str, seed: int, seat: int, actions: list[dict[str, object]]) -> list[str]:
    """Replay the match: the history line the bot must print at each of its decisions."""
    game = load_game(game_name)
    state = game.new_state(2, seed)
    history: list[object] = []
    lines = []
    for action in actions:
        if action["seat"] == seat:
            digest = hashlib.sha256(json.dumps(history, sort_keys=True).encode()).hexdigest()[:16]
            lines.append(f"H {len(history)} {digest} same")
        choice = action["choice"]
        assert isinstance(choice, int)
        history += game.seat_events(seat, state.choose(choice))
    return lines


@pytest.mark.parametrize(("game", "seat"), [("evolution", 1), ("marine", 0)])
def test_a_sandboxed_bot_gets_its_seats_history_and_determinizes_from_it(game: str, seat: int) -> None:
    bot = SandboxedSeat(HISTORIAN.encode(), "main.py", CONFIG)
    greedy = InProcessSeat("greedy", game, 5)
    result = play_game(game, 2, 8, {}, [bot, greedy] if seat == 0 else [greedy, bot], clock=CLOCK)
    assert not any(a.get("fault") for a in result.actions), result.logs[seat]
    printed = [line for line in result.logs[seat].splitlines() if line.startswith("H ")]
    _assert_histories(printed, _expected_histories(game, 8, seat, result.actions))


def test_a_warm_seat_of_protocol_3_gets_its_history_in_its_next_match_too(settings: Any) -> None:
    """A woken seat's answer to its next hello (naming the match's epoch) asks for its history as a new seat's hello
    does: its second match's decides carry that match's events from the start."""
    settings.LUDUS_WARM_SEATS = 2
    version = SimpleNamespace(id=1, sha256="sha-historian", source=HISTORIAN.encode(), filename="main.py")
    played: list[SandboxedSeat] = []
    try:
        for seed in (8, 9):
            bot = make_sandboxed_seat(version, seed, config=CONFIG)  # a match id: a validation is never parked
            result = play_game("evolution", 2, seed, {}, [InProcessSeat("greedy", "evolution", 5), bot], clock=CLOCK)
            bot.close()  # what the runner does after every match: a parked seat stays
            played.append(bot)
            assert not any(a.get("fault") for a in result.actions), result.logs[1]
            printed = [line for line in result.logs[1].splitlines() if line.startswith("H ")]
            _assert_histories(printed, _expected_histories("evolution", seed, 1, result.actions))
        assert played[1] is played[0]  # the same process played both
    finally:
        POOL.clear()


SEARCH_BOT = Path(__file__).resolve().parents[2] / "examples" / "bots" / "search_bot.py"
CAUGHT = "while another seat held the decision"  # the freezer's note in a seat's log (docs/bots.md, "The freezer")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # the runner's heartbeat renews its lease from a thread of its own
@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_the_search_bot_uploaded_plays_a_match_without_a_fault_and_never_computes_off_its_turn(
        game: str, alice: Any, builtin_versions: dict[str, Any], settings: Any) -> None:
    from tournaments.bot_lifecycle import upload_bot_version
    from tournaments.models import Seat
    from tournaments.scheduling import create_tournament, start_tournament
    from workers.runner import run_match
    from workers.validation import validate_version

    settings.LUDUS_MOVE_MS = 100  # its validation's smoke match: the bot spends each move's clock
    version = upload_bot_version(alice, "searcher", game, "search_bot.py", SEARCH_BOT.read_bytes())
    assert validate_version(version.pk) == "active"
    version.refresh_from_db()
    tournament = create_tournament([version, builtin_versions["greedy"]], name="search", game=game,
                                   players_per_table=2, games_per_set=1, seed=11, move_ms=100,
                                   bank_ms=30_000)  # a loaded CI host wakes a seat late: the bank pays for it
    [match] = start_tournament(tournament, enqueue=False)
    assert run_match(match.pk) == "finished"
    seat = Seat.objects.get(match=match, bot_version=version)
    assert seat.faults == 0 and not seat.forfeited, seat.log
    assert CAUGHT not in seat.log and "Traceback" not in seat.log, seat.log
