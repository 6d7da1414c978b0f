"""manage.py test_versions: start a test, follow it to its verdict (games played here without a broker), --show."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command

from tournaments.models import VersionTest

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("test_versions", *args, stdout=out)
    return out.getvalue()


@pytest.mark.slow  # a few dozen games to a decision
def test_it_follows_a_test_to_its_verdict_and_shows_it(settings):
    settings.CELERY_BROKER_URL = None  # this process plays the games
    output = run("greedy", "random", "--game", "marine", "--d1", "0.3", "--batch", "8", "--max-games", "400",
                 "--wait")
    test = VersionTest.objects.get()
    assert test.status == VersionTest.Status.PASSED
    assert f"test {test.pk}: greedy@1 against random@1: passed" in output
    assert re.search(r"^  \d+ games: LLR [\d.-]+ in \[-2\.944, 2\.944\]$", output, re.MULTILINE)
    assert f"seed {test.seed};" in output and "score lead of new (95 %): +" in output
    assert run("--show", str(test.pk)).splitlines()[0] == f"test {test.pk}: greedy@1 against random@1: passed"


@pytest.mark.parametrize(("args", "message"), [
    (("greedy",), "give NEW and BASE"),
    (("greedy", "nobody", "--game", "marine"), "'nobody' is neither a bot version id nor a built-in bot"),
    (("greedy", "random"), "game: new and base must play one game"),
    (("greedy", "random", "--game", "marine", "--d1", "-0.1"), "bounds: the bounds must satisfy"),
    (("greedy", "random", "--game", "marine", "--user", "nobody"), "no user 'nobody'"),
    (("--show", "987654"), "no version test 987654"),
])
def test_each_bad_input_is_one_clear_error(args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run(*args)
    assert not VersionTest.objects.exists()
