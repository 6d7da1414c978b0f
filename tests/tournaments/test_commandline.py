"""manage.py on a machine that is not ready says what is missing in one line, and the local settings file.

A missing setting or a database that is not migrated (or not there) is one line on stderr naming it, exit 1, no
traceback. var/local.env (`make local`) lets a new shell run commands with nothing exported; the environment wins
over it, and production (DEBUG=0 in the environment) never reads it.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import ROOT, free_port

pytestmark = pytest.mark.integration  # each test starts manage.py processes: make test, not the everyday make check
SHOW_SETTINGS = ("import django; django.setup(); from django.conf import settings as s; "
                 "print(s.DEBUG, s.SECRET_KEY, s.LUDUS_MOVE_MS)")


def new_shell(**extra: str) -> dict[str, str]:
    """This process's environment less every Ludus setting, as in a new shell; no local settings file unless named."""
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("LUDUS_", "DEBUG", "SECRET_KEY", "DATABASE_", "CELERY_", "CACHE_URL"))}
    return {**keep, "LUDUS_ENV_FILE": "", **extra}


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def assert_one_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, f"exit {done.returncode}, stderr:\n{done.stderr}"
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("command", [
    ["standings", "--tournament", "1"],
    ["upload_bot", "--owner", "ann", "--name", "x", "--game", "evolution", "examples/bots/evolution_bot.py"],
    ["replay", "verify", "--all"],
])
def test_it_says_in_one_line_that_the_database_is_not_migrated(tmp_path: Path, command: list[str]) -> None:
    database = tmp_path / "new.sqlite3"
    done = run(["manage.py", *command], new_shell(DEBUG="1", DATABASE_URL=f"sqlite:///{database}"))
    assert_one_line(done, f"the database {database} is not migrated", "manage.py migrate")


def test_it_says_in_one_line_that_the_database_cannot_be_reached() -> None:
    port = free_port()
    done = run(["manage.py", "standings", "--tournament", "1"],
               new_shell(DEBUG="1", DATABASE_URL=f"postgres://postgres@127.0.0.1:{port}/ludus_nowhere"))
    assert_one_line(done, f"cannot use the database ludus_nowhere@127.0.0.1:{port}")


def test_without_debug_it_names_the_missing_secret_key_and_the_way_out() -> None:
    done = run(["manage.py", "try_bot", "--help"], new_shell())
    assert_one_line(done, "SECRET_KEY is required when DEBUG is off", "make local")


def test_a_bad_setting_is_one_line_naming_it() -> None:
    done = run(["manage.py", "check"], new_shell(DEBUG="1", LUDUS_MOVE_MS="fast"))
    assert_one_line(done, "LUDUS_MOVE_MS must be an integer, got 'fast'")


@pytest.fixture
def local_env(tmp_path: Path) -> Path:
    path = tmp_path / "local.env"
    path.write_text("# written by make local\nDEBUG=1\nSECRET_KEY=the-local-key\nLUDUS_MOVE_MS=5\n")
    return path


def test_the_local_settings_file_lets_a_new_shell_run_commands(local_env: Path) -> None:
    done = run(["-c", SHOW_SETTINGS], new_shell(LUDUS_ENV_FILE=str(local_env)))
    assert done.stdout.split() == ["True", "the-local-key", "5"], done.stderr
    assert run(["manage.py", "try_bot", "--help"], new_shell(LUDUS_ENV_FILE=str(local_env))).returncode == 0


def test_the_environment_wins_over_the_local_settings_file(local_env: Path) -> None:
    done = run(["-c", SHOW_SETTINGS], new_shell(LUDUS_ENV_FILE=str(local_env), LUDUS_MOVE_MS="7"))
    assert done.stdout.split() == ["True", "the-local-key", "7"], done.stderr


def test_production_never_reads_the_local_settings_file(local_env: Path) -> None:
    assert_one_line(run(["manage.py", "check"], new_shell(LUDUS_ENV_FILE=str(local_env), DEBUG="0")),
                    "SECRET_KEY is required")
    done = run(["-c", SHOW_SETTINGS], new_shell(LUDUS_ENV_FILE=str(local_env), DEBUG="0", SECRET_KEY="prod-key"))
    assert done.stdout.split() == ["False", "prod-key", "1000"], done.stderr


def test_make_local_writes_a_private_file_with_a_fresh_key_once(tmp_path: Path) -> None:
    keys = []
    for name in ("a.env", "b.env"):
        path = tmp_path / name
        made = subprocess.run(["make", "-s", f"LOCAL_ENV={path}", str(path)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert made.returncode == 0, made.stderr
        lines = path.read_text().splitlines()
        assert lines[0] == "DEBUG=1" and lines[1].startswith("SECRET_KEY=") and len(lines) == 2, lines
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        keys.append(lines[1].removeprefix("SECRET_KEY="))
    assert len(keys[0]) >= 50 and keys[0] != keys[1]
    before = (tmp_path / "a.env").read_text()
    subprocess.run(["make", "-s", f"LOCAL_ENV={tmp_path / 'a.env'}", str(tmp_path / "a.env")], cwd=ROOT, timeout=60,
                   check=True)
    assert (tmp_path / "a.env").read_text() == before, "a second make local replaced the key"
