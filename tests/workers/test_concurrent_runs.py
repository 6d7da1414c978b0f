"""Two processes with their own database connections run the same matches at once: one result per match."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db.models import Q

from replays.models import Replay
from tournaments.models import Match, Rating, Seat
from tournaments.ratings import rating_differences
from tournaments.scheduling import start_tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

RUN_ALL = (
    "import django, json, sys\n"
    "django.setup()\n"
    "from workers.runner import run_match\n"
    "print(json.dumps([run_match(int(i)) for i in sys.argv[1:]]))\n"
)


def test_two_processes_racing_on_the_same_matches_record_each_once(
    tournament: Any, toygame_prelude: str, subprocess_env: Callable[[], dict[str, str]], repo_root: Path
) -> None:
    ids = [str(m.pk) for m in start_tournament(tournament, enqueue=False)]
    runners = [
        subprocess.Popen([sys.executable, "-c", toygame_prelude + RUN_ALL, *ids], cwd=repo_root, env=subprocess_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [runner.communicate(timeout=300) for runner in runners]
    for runner, (_, err) in zip(runners, outputs, strict=True):
        assert runner.returncode == 0, err
    results = list(zip(*[json.loads(out.strip().splitlines()[-1]) for out, _ in outputs], strict=True))
    assert all(sorted(pair).count("finished") == 1 for pair in results), results
    assert Match.objects.filter(tournament=tournament, status="finished").count() == len(ids)
    assert Replay.objects.filter(match__tournament=tournament).count() == len(ids)
    for rating in Rating.objects.filter(tournament=tournament):
        played = Seat.objects.filter(match__tournament=tournament, bot_version=rating.bot_version).count()
        assert rating.games == played
    assert not Seat.objects.filter(match__tournament=tournament, rating_mu_after__isnull=True).exists()
    assert rating_differences(Q(tournament=tournament), Q(tournament=tournament)) == []
