"""The `ludus` command, as a bot author runs it: the installed script in a process of its own, against a live server,
with a real Celery worker validating uploads and playing matches in the sandbox.

The story test goes from login to a replay file; the others give the client a bad input or a refusal each, and
expect one line on stderr naming it and a non-zero exit status.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from replays.format import decode_replay
from replays.verify import verify_document
from tournaments.builtins import ensure_builtin
from tournaments.models import Ladder

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
LUDUS = Path(sys.executable).with_name("ludus")
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
PASSWORD = "alice-password-1"


@dataclass
class Run:
    code: int
    out: str
    err: str


@dataclass
class Site:
    url: str
    home: Path
    token: str
    ladder: Ladder

    def ludus(self, *args: str, stdin: str = "", **env: str) -> Run:
        environment = {key: value for key, value in os.environ.items() if not key.startswith("LUDUS_")}
        environment.update(LUDUS_CONFIG=str(self.home / "ludus.json"), COLUMNS="200", **env)
        done = subprocess.run([str(LUDUS), *args], input=stdin, capture_output=True, text=True, timeout=900,
                              cwd=self.home, env=environment)
        return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def site(live_server: Any, alice: Any, tmp_path: Path) -> Site:
    alice.set_password(PASSWORD)
    alice.save()
    ensure_builtin("greedy")
    ladder = Ladder.objects.create(name="evo", game="evolution", players_per_match=2, options={"deck": "short"},
                                   created_by=alice)
    return Site(live_server.url, tmp_path, Token.objects.create(user=alice).key, ladder)


def refused(run: Run, *words: str) -> None:
    """Exit status 1 and one line on stderr, naming the problem."""
    assert run.code == 1, (run.out, run.err)
    assert run.err.startswith("ludus: ") and run.err.count("\n") == 1, run.err
    for word in words:
        assert word in run.err, run.err


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")
def test_an_author_logs_in_uploads_plays_a_match_and_downloads_its_replay(
    site: Site, celery_worker_process: Any
) -> None:
    login = site.ludus("login", "--url", site.url, "--username", "alice", "--password-stdin", stdin=PASSWORD + "\n")
    assert login.code == 0, login.err
    saved = site.home / "ludus.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600 and '"token"' in saved.read_text()

    upload = site.ludus("upload", str(EXAMPLE), "--game", "evolution", "--name", "scout", "--wait")
    assert upload.code == 0, (upload.out, upload.err)
    assert "uploaded scout@1" in upload.out and "scout@1: active" in upload.out
    assert "Verdict: active" in upload.out  # the validation log

    bots = site.ludus("bots")
    assert bots.code == 0 and "scout" in bots.out and "alice" in bots.out

    played = site.ludus("match", "scout", "--ladder", "evo", "--vs", "greedy", "--rated")
    assert played.code == 0, (played.out, played.err)
    match_id = int(played.out.split()[1])
    assert "scout@1" in played.out and "greedy@1" in played.out
    assert f"finished; watch it at {site.url}/replays/{match_id}/" in played.out

    branched = site.ludus("branch", str(match_id), "--step", "6", "--seat", "2=random")  # Seat 2: greedy's
    assert branched.code == 0, (branched.out, branched.err)
    # Its status as the answer to the request read it: the worker may have taken it (or played it) by then.
    assert re.search(rf"branch match {match_id + 1} of match {match_id} at step 6: (queued|running|finished)\n",
                     branched.out), branched.out
    assert "random@1" in branched.out and f"{site.url}/replays/{match_id + 1}/compare/" in branched.out

    standings = site.ludus("standings", "evo")
    assert standings.code == 0 and "scout@1" in standings.out and "greedy@1" in standings.out

    replay = site.ludus("replay", str(match_id), "-o", "match.replay.gz")
    assert replay.code == 0, replay.err
    data = (site.home / "match.replay.gz").read_bytes()
    verify_document(decode_replay(data))
    from django.test import Client

    export = Client().get(f"/replays/{match_id}/export/")
    assert export.status_code == 200 and data == export.content  # the same bytes as the site's download


def test_a_token_in_the_environment_needs_no_login_and_a_bad_one_is_one_line(site: Site) -> None:
    listed = site.ludus("ladders", LUDUS_URL=site.url, LUDUS_TOKEN=site.token)
    assert listed.code == 0 and "evo" in listed.out
    refused(site.ludus("bots", LUDUS_URL=site.url, LUDUS_TOKEN="0" * 40),
            "answered 401", "Invalid token", "ludus login")


def test_a_wrong_password_is_one_line_and_saves_nothing(site: Site) -> None:
    run = site.ludus("login", "--url", site.url, "--username", "alice", "--password-stdin", stdin="wrong\n")
    refused(run, "answered 400", "Unable to log in")
    assert not (site.home / "ludus.json").exists()


def test_an_upload_that_does_not_compile_is_rejected_with_its_error(site: Site, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def act(view, decision:\n    return 0\n")
    run = site.ludus("upload", str(broken), "--game", "evolution", "--wait", LUDUS_URL=site.url,
                     LUDUS_TOKEN=site.token)
    assert run.code == 1 and "broken@1" in run.out and "rejected" in run.out and "broken.py" in run.out


BAD = {
    "not logged in": (["upload", "bot.py", "--game", "evolution"], False, ["not logged in", "LUDUS_TOKEN"]),
    "unknown game": (["upload", str(EXAMPLE), "--game", "chess"], True, ["answered 400", "known games"]),
    "missing file": (["upload", "nowhere.py", "--game", "evolution"], True, ["cannot read nowhere.py"]),
    "unknown ladder": (["match", "x", "--ladder", "nope", "--vs", "greedy"], True, ["no ladder is called 'nope'"]),
    "unknown bot": (["match", "ghost", "--ladder", "evo", "--vs", "greedy"], True,
                    ["no evolution bot is called 'ghost'"]),
    "no replay yet": (["replay", "999999"], True, ["answered 404"]),
    "no such match to branch": (["branch", "999999", "--step", "1"], True, ["answered 404"]),
    "a bad seat to branch": (["branch", "1", "--step", "1", "--seat", "one=greedy"], True,
                             ["--seat takes N=BOT, got 'one=greedy'"]),
    "unknown standings": (["standings", "999999"], True, ["answered 404"]),
}


@pytest.mark.parametrize("args, with_token, words", BAD.values(), ids=BAD.keys())
def test_every_refusal_is_one_line_and_a_failing_exit(site: Site, args: list[str], with_token: bool,
                                                     words: list[str]) -> None:
    token = {"LUDUS_TOKEN": site.token} if with_token else {}
    refused(site.ludus(*args, LUDUS_URL=site.url, **token), *words)


def test_a_server_that_is_down_is_one_line(site: Site) -> None:
    from testkit import free_port

    refused(site.ludus("bots", LUDUS_URL=f"http://127.0.0.1:{free_port()}"), "cannot reach", "LUDUS_URL")


def test_the_client_runs_without_django() -> None:
    """It is a program of its own: importing it loads neither Django nor the server's settings."""
    code = "import sys, ludus_client.main; print(sorted({m.split('.')[0] for m in sys.modules} & {'django', " \
           "'rest_framework', 'celery'}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={"PATH": os.environ.get("PATH", "")})
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_a_login_without_input_is_one_line(site: Site) -> None:
    refused(site.ludus("login", "--url", site.url), "input ended")
