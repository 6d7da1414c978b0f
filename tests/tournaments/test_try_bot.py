"""manage.py try_bot: the author's file in the real sandbox against built-ins; unrated, replays kept."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from replays.models import Replay
from tournaments.models import Bot, BotVersion, Match, Rating, Seat

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "evolution_bot.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`"),
]


def try_bot(path: Path | str, *args: str) -> str:
    out = io.StringIO()
    call_command("try_bot", str(path), "--game", "evolution", *args, stdout=out)
    return out.getvalue()


def replay_ids(output: str) -> list[int]:
    found = re.search(r"^replays: match ([\d ]+) \(", output, re.MULTILINE)
    assert found, output
    return [int(i) for i in found.group(1).split()]


@pytest.mark.django_db
def test_it_plays_each_game_and_prints_results_faults_stderr_and_replays(builtin_versions: dict[str, Any]) -> None:
    output = try_bot(FIXTURES / "good_bot.py", "--against", "greedy,random", "--games", "2")
    assert "game 1 of 2" in output and "game 2 of 2" in output
    assert re.search(r"seat 0: your bot +rank \d  score \d+  faults 0", output)
    assert re.search(r"seat 1: your bot +rank \d", output)  # the seat rotates
    assert output.count("your bot's faults: none") == 2
    assert output.count("good bot: ready") == 2  # its stderr
    ids = replay_ids(output)
    assert len(ids) == 2
    for match in Match.objects.filter(pk__in=ids):
        assert match.status == "finished" and not match.rated
        assert match.ladder is not None and match.ladder.name == "try_bot evolution" and match.ladder.paused
        assert Replay.objects.filter(match=match).exists()


@pytest.mark.django_db
def test_try_out_matches_never_touch_a_rating(make_tournament: Callable[..., Any]) -> None:
    from tournaments.scheduling import start_tournament
    from workers.runner import run_match

    tournament = make_tournament(game="evolution", entrants=("greedy", "random"), players_per_table=2)
    [match] = start_tournament(tournament, enqueue=False)
    run_match(match.pk)
    before = list(Rating.objects.order_by("pk").values_list("pk", "mu", "sigma", "games"))

    ids = replay_ids(try_bot(EXAMPLE, "--against", "greedy,random", "--games", "2"))

    assert list(Rating.objects.order_by("pk").values_list("pk", "mu", "sigma", "games")) == before
    assert not Seat.objects.filter(match_id__in=ids).exclude(rating_mu_after=None).exists()
    tryout = BotVersion.objects.get(bot__owner__username="tryout")
    assert tryout.status == "retired"  # never entered, validated or matched into a competition
    assert not Rating.objects.filter(bot_version=tryout).exists()


@pytest.mark.django_db
def test_faults_are_printed_with_their_step_and_code(builtin_versions: dict[str, Any]) -> None:
    output = try_bot(FIXTURES / "out_of_range.py", "--against", "greedy", "--players", "2")
    assert "faults 3, forfeited" in output and "your bot's faults: 3" in output
    steps = re.findall(r"^    step (\d+) \((\w+)\): out_of_range, took \d+ ms; played the default, option 0$",
                       output, re.MULTILINE)
    assert len(steps) == 3
    [match_id] = replay_ids(output)
    shown = io.StringIO()
    call_command("replay", "show", str(match_id), "--no-board", stdout=shown)
    step, kind = steps[0]
    assert f"step {step}: seat 0 decides {kind}" in shown.getvalue()  # the same numbering as replay show
    urls = re.findall(r"^      (http\S+)$", output, re.MULTILINE)
    assert urls == [f"http://127.0.0.1:8000/replays/{match_id}/#step={s}&view=0" for s, _ in steps]
    # The viewer's log (the API the viewer reads) puts each fault at the step printed.
    client = Client()
    log = client.get(f"/replays/{match_id}/log.json").json()["log"]
    assert [str(entry["step"]) for entry in log if entry["fault"] and entry["seat"] == 0] == [s for s, _ in steps]
    # And the API's action log numbers them the same.
    actions = client.get(f"/api/matches/{match_id}/replay/actions/").json()["actions"]
    assert [str(a["step"]) for a in actions if a.get("fault") and a["seat"] == 0] == [s for s, _ in steps]
    assert client.get(f"/api/matches/{match_id}/replay/").json()["viewer"] == f"http://testserver/replays/{match_id}/"


@pytest.mark.django_db
def test_a_bot_that_crashes_shows_its_traceback(builtin_versions: dict[str, Any]) -> None:
    output = try_bot(FIXTURES / "crash_at_start.py")
    assert "forfeited" in output and "RuntimeError: weights.json is missing" in output
    assert "died" in output or "faults 1" in output


@pytest.mark.django_db
def test_the_same_file_reuses_its_try_out_version(builtin_versions: dict[str, Any]) -> None:
    try_bot(EXAMPLE)
    try_bot(EXAMPLE, "--seed", "9")
    assert BotVersion.objects.filter(bot__owner__username="tryout").count() == 1
    assert Match.objects.filter(ladder__name="try_bot evolution").count() == 2


@pytest.mark.django_db
def test_no_clock_gives_an_hour_per_move(builtin_versions: dict[str, Any]) -> None:
    [match_id] = replay_ids(try_bot(EXAMPLE, "--no-clock"))
    match = Match.objects.get(pk=match_id)
    assert (match.move_ms, match.bank_ms) == (3_600_000, 0)


@pytest.mark.django_db
@pytest.mark.parametrize(("args", "message"), [
    (["/no/such/bot.py"], "no such file"),
    ([str(FIXTURES / "README.md")], "a .py file or a .zip"),
    ([str(EXAMPLE), "--against", "stockfish"], "--against takes built-in bots"),
    ([str(EXAMPLE), "--players", "9"], "9"),
    ([str(EXAMPLE), "--games", "0"], "--games must be at least 1"),
])
def test_bad_input_is_a_command_error_and_creates_nothing(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("try_bot", *args, "--game", "evolution", stdout=io.StringIO())
    assert not Match.objects.exists() and not Bot.objects.filter(owner__username="tryout").exists()


@pytest.mark.django_db
def test_an_unknown_game_and_a_syntax_error_are_command_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="unknown game 'chess'"):
        call_command("try_bot", str(EXAMPLE), "--game", "chess", stdout=io.StringIO())
    broken = tmp_path / "broken.py"
    broken.write_text("def act(view, decision):\n  return [0\n")
    with pytest.raises(CommandError, match=r"(?s)line 2, column \d+: SyntaxError"):
        try_bot(broken)
    assert not Match.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_runs_from_the_command_line(subprocess_env: Callable[..., dict[str, str]], tmp_path: Path) -> None:
    env = subprocess_env()
    env.pop("CELERY_BROKER_URL", None)
    done = subprocess.run([sys.executable, "manage.py", "try_bot", str(EXAMPLE), "--game", "evolution"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "your bot's faults: none" in done.stdout and "replays: match" in done.stdout
    bad = subprocess.run([sys.executable, "manage.py", "try_bot", str(tmp_path / "missing.py"), "--game",
                          "evolution"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "no such file" in bad.stderr
