"""The engine in every seat: a sandboxed bot imports the engine that plays its match, and only that one."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest

from engine.registry import load_game
from workers.play import play_game
from workers.sandbox import SandboxConfig, SandboxedSeat
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
