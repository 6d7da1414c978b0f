"""`ludus test NEW BASE`: the installed client starts a version test on a live server, follows it to its verdict
and exits 0 when new passed (docs/version-tests.md); each refusal is one line and a failing exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from tournaments.builtins import ensure_builtin
from tournaments.models import VersionTest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration,
              pytest.mark.usefixtures("embedded_runner_stopped")]

LUDUS = Path(sys.executable).with_name("ludus")


def ludus(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("LUDUS_")}
    environment.update(LUDUS_CONFIG=str(home / "ludus.json"), COLUMNS="200", **env)
    return subprocess.run([str(LUDUS), *args], capture_output=True, text=True, timeout=600, cwd=home,
                          env=environment)


def test_ludus_test_follows_a_test_to_its_verdict(live_server: Any, alice: Any, tmp_path: Path) -> None:
    greedy, rand = ensure_builtin("greedy"), ensure_builtin("random")
    token = Token.objects.create(user=alice).key
    done = ludus(tmp_path, "test", str(greedy.pk), str(rand.pk), "--game", "marine", "--d1", "0.3",
                 "--max-games", "400", "--wait", LUDUS_URL=live_server.url, LUDUS_TOKEN=token)
    assert done.returncode == 0, (done.stdout, done.stderr)
    test = VersionTest.objects.get()
    assert test.status == VersionTest.Status.PASSED and test.owner == alice
    assert f"test {test.pk} started: greedy@1 against random@1" in done.stdout
    assert f"test {test.pk}: greedy@1 against random@1: passed" in done.stdout
    assert str(test.seed) in done.stdout and "score-share lead (95 %)" in done.stdout


@pytest.mark.parametrize(("args", "with_token", "words"), [
    (["test", "1", "2"], False, ["not logged in"]),
    (["test", "hungry", "2"], True, ["give --game"]),
    (["test", "987654", "987655", "--game", "marine"], True, ["no bot version 987654"]),
], ids=["no token", "a name without a game", "no such version"])
def test_each_refusal_is_one_line(live_server: Any, alice: Any, tmp_path: Path, args: list[str], with_token: bool,
                                  words: list[str]) -> None:
    env = {"LUDUS_URL": live_server.url} | ({"LUDUS_TOKEN": Token.objects.create(user=alice).key} if with_token
                                           else {})
    done = ludus(tmp_path, *args, **env)
    assert done.returncode == 1 and done.stderr.startswith("ludus: ") and done.stderr.count("\n") == 1, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr
    assert not VersionTest.objects.exists()
