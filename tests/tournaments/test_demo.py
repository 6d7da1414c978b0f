"""`manage.py demo --no-serve` (what `make demo` runs) on a fresh SQLite file, with the embedded runner."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import urllib.request
from contextlib import closing
from pathlib import Path

import pytest
from testkit import free_port, listening, wait_until

from tournaments.management.commands.demo import site_url

pytestmark = [pytest.mark.slow, pytest.mark.integration]
ROOT = Path(__file__).resolve().parents[2]


def manage(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


def demo_env(tmp_path: Path, migrated: Path | None = None) -> dict[str, str]:
    """The embedded default on a fresh SQLite file, or on a copy of `migrated` (a database migrate has just made:
    the demo's migrate then has nothing to do, and the test does not pay for every migration again)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    if migrated is not None:
        shutil.copyfile(migrated, tmp_path / "demo.sqlite3")
    env.update(DEBUG="1", DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}", LUDUS_WORKER_CONCURRENCY="2")
    return env


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("migrated")
    done = manage(ROOT, demo_env(where), "migrate", "--verbosity", "0")
    assert done.returncode == 0, done.stderr
    return where / "demo.sqlite3"


def test_the_demo_runs_a_tournament_on_sqlite_and_prints_standings(tmp_path: Path) -> None:
    env = demo_env(tmp_path)
    done = manage(ROOT, env, "demo", "--no-serve", "--entrants", "4", "--players", "3", "--games", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "demo evolution round robin: a round robin of 4 bots" in out and "8 matches" in out
    assert "on 2 local processes" in out
    for heading in ("bot", "games", "wins", "points", "mean score", "rating (mu-3σ)"):
        assert heading in out
    for name in ("greedy@1", "random@1", "greedy-2@1", "random-2@1"):
        assert name in out
    assert "wins by seat" in out
    verified = manage(ROOT, env, "replay", "verify", "--all")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "8 verified, 0 mismatched" in verified.stdout


def test_run_ladder_plays_the_demos_open_ladder_right_after_it(tmp_path: Path, migrated: Path) -> None:
    env = demo_env(tmp_path, migrated)
    done = manage(ROOT, env, "demo", "--no-serve", "--entrants", "2", "--players", "2", "--games", "1")
    assert done.returncode == 0, done.stderr
    ladder = manage(ROOT, env, "run_ladder", "--rounds", "1", "--timeout", "300")
    assert ladder.returncode == 0, ladder.stderr
    assert "round 1: 4 new match(es)" in ladder.stdout and "demo evolution ladder" in ladder.stdout
    with closing(sqlite3.connect(tmp_path / "demo.sqlite3")) as db:
        assert db.execute("SELECT name, is_open FROM tournaments_ladder").fetchall() == [("demo evolution ladder", 1)]


def test_the_demos_port_is_in_every_link_printed_in_another_shell(tmp_path: Path, migrated: Path) -> None:
    """`make demo PORT=8391`: var/local.env records the demo's address, so `replay show` in a new shell links to it;
    an address the environment names wins and is left alone. A second demo on the same database takes a name of
    its own."""
    local_env = tmp_path / "local.env"
    local_env.write_text("DEBUG=1\n")
    env = {k: v for k, v in demo_env(tmp_path, migrated).items() if k != "LUDUS_SITE_URL"}
    env["LUDUS_ENV_FILE"] = str(local_env)
    done = manage(ROOT, env, "demo", "--no-serve", "--entrants", "2", "--players", "2", "--games", "1",
                  "--addrport", "0.0.0.0:8391")
    assert done.returncode == 0, done.stderr
    assert "LUDUS_SITE_URL=http://127.0.0.1:8391\n" in local_env.read_text()
    match_id = done.stdout.partition("replay show ")[2].split()[0]
    shown = manage(ROOT, env, "replay", "show", match_id)
    assert shown.returncode == 0, shown.stderr
    assert f"viewer: http://127.0.0.1:8391/replays/{match_id}/" in shown.stdout, shown.stdout
    assert ":8000" not in shown.stdout
    again = manage(ROOT, {**env, "LUDUS_SITE_URL": "https://ludus.example.org"}, "demo", "--no-serve",
                   "--entrants", "2", "--players", "2", "--games", "1", "--addrport", "127.0.0.1:8392")
    assert again.returncode == 0, again.stderr
    assert "LUDUS_SITE_URL=http://127.0.0.1:8391\n" in local_env.read_text()
    names = [out.partition(": a round robin")[0].rpartition("\n")[2] for out in (done.stdout, again.stdout)]
    assert names == ["demo evolution round robin", "demo evolution round robin 2"], names


@pytest.mark.parametrize(("addrport", "url"), [("8391", "http://127.0.0.1:8391"), ("0:8391", "http://127.0.0.1:8391"),
                                               ("localhost:8391", "http://localhost:8391"),
                                               ("[::]:8391", "http://[::1]:8391")])
def test_the_site_url_is_the_address_people_open(addrport: str, url: str) -> None:
    assert site_url(addrport) == url


def test_the_demos_open_ladder_plays_by_itself_while_it_serves(tmp_path: Path, migrated: Path) -> None:
    """No run_ladder, no beat: the demo's clock tops the ladder up, its pool plays the matches, and the ladder page
    says when the next round comes."""
    env = {**demo_env(tmp_path, migrated), "LUDUS_LADDER_SECONDS": "2"}
    port = free_port()
    log = tmp_path / "demo.log"
    with open(log, "wb") as out:
        demo = subprocess.Popen([sys.executable, "manage.py", "demo", "--entrants", "2", "--players", "2", "--games",
                                 "1", "--addrport", f"127.0.0.1:{port}"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: listening(port) or demo.poll() is not None, 600, "the demo to serve")
        assert demo.poll() is None, log.read_text()[-3000:]
        printed = " ".join(log.read_text().split())  # the console wraps long lines
        assert "on an open ladder, a round every 2 s while the demo serves" in printed
        ladder_url = printed.partition("Ladder: ")[2].split()[0]
        assert ladder_url.startswith(f"http://127.0.0.1:{port}/ladders/"), printed

        def ladder_games() -> int:  # read from the demo's file: a `manage.py shell` a poll cost a Django start-up
            with closing(sqlite3.connect(tmp_path / "demo.sqlite3", timeout=30)) as db:
                (count,) = db.execute("SELECT count(*) FROM tournaments_match m JOIN tournaments_ladder l ON "
                                      "m.ladder_id = l.id WHERE l.name = 'demo evolution ladder' AND "
                                      "m.status = 'finished'").fetchone()
            return int(count)

        assert wait_until(lambda: ladder_games() >= 6, 600, "the ladder to play two rounds by itself")
        with urllib.request.urlopen(ladder_url, timeout=30) as page:
            body = page.read().decode()
        assert re.search(r"Next round (in about \d+ s|any moment now) \(", body), body[-3000:]
        assert "every 2 s the ladder is topped up" in body
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(timeout=60)
