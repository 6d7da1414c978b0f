"""`ludus branch --resample`, as an author runs it: the installed client against a live server, a real Celery worker
playing the re-dealt branch, and the branch's live feed followed to its end (docs/branches.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from tournaments.builtins import ensure_builtin
from tournaments.models import Ladder, Match
from tournaments.new_matches import create_match
from workers.runner import run_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
LUDUS = Path(sys.executable).with_name("ludus")


def test_ludus_branch_resample_follows_each_re_dealt_game_to_its_end(
        live_server: Any, alice: Any, tmp_path: Path, celery_worker_process: Any) -> None:
    ladder = Ladder.objects.create(name="evo duel", game="evolution", players_per_match=2, created_by=alice,
                                   options={"deck": "short"})
    parent = create_match(ladder, [ensure_builtin("greedy"), ensure_builtin("greedy-2", "greedy")], 41)
    assert run_match(parent.pk) == "finished"
    config = tmp_path / "ludus.json"
    config.write_text(f'{{"url": "{live_server.url}", "token": "{Token.objects.create(user=alice).key}"}}')
    environment = {key: value for key, value in os.environ.items() if not key.startswith("LUDUS_")}
    environment.update(LUDUS_CONFIG=str(config), COLUMNS="200")
    done = subprocess.run([str(LUDUS), "branch", str(parent.pk), "--step", "6", "--resample", "--games", "2",
                           "--seed", "5", "--timeout", "120"], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env=environment)
    assert done.returncode == 0, (done.stdout, done.stderr)
    children = list(Match.objects.filter(parent=parent).order_by("pk"))
    assert len(children) == 2 and all(child.status == Match.Status.FINISHED for child in children)
    assert all(f"{live_server.url}/replays/{child.pk}/compare/" in done.stdout for child in children)
    assert "batch of 2 re-dealt games at step 6 (2 finished), against the parent's outcome:" in done.stdout
    assert "  seat 1: parent" in done.stdout and "mean score" in done.stdout
    assert "the batch can see" in done.stdout  # the verdict, one way or the other


@pytest.mark.django_db(transaction=False)
def test_the_client_says_why_a_feed_stopped_in_one_line() -> None:
    import io

    from rich.console import Console

    from ludus_client.http import ClientError
    from ludus_client.matches import follow

    class OneFeed:  # the server's side of one connection: a match line, then the error line that ends the feed
        url = "http://ludus.example"

        def lines(self, path: str, timeout_s: float) -> Any:
            yield {"type": "match", "match": 7}
            yield {"type": "error", "detail": "match 7's actions do not replay: action 3: choice 9 is out of range"}

    with pytest.raises(ClientError) as raised:
        follow(OneFeed(), 7, Console(file=io.StringIO()), 5)  # type: ignore[arg-type]
    assert str(raised.value) == ("match 7: its feed stopped: match 7's actions do not replay: action 3: choice 9 is "
                                 "out of range")
