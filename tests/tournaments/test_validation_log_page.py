"""The version page reads the validation log for its author (tournaments/pages/validation_log.py): the faults with
links into the viewer on this site, the verdict, a "what next" for a rejected version, and the stderr by step."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tournaments.models import Bot, BotVersion
from tournaments.pages.validation_log import read_log
from workers.validation import FaultNote

pytestmark = pytest.mark.django_db


def rejected_log(settings: Any) -> str:
    settings.LUDUS_SITE_URL = "http://127.0.0.1:8131"  # another port than the page's: the links follow the site
    notes = [FaultNote(3, "feed", "timeout", "no answer in 1000 ms"), FaultNote(5, "feed", "bad_json", "")]
    lines = ["Smoke match: evolution, 2 players, seed 7, clock 1000 ms per move + 10000 ms bank; your bot at seat 0 "
             "against greedy (built-in).",
             "Result: rank 2 of 2, score 3; the bot was asked 5 decision(s), 2 fault(s), forfeited.",
             "Faults (step, decision kind, code, detail; the viewer at that step):"]
    lines += [line for note in notes for line in (note.line(), note.link(41))]
    lines += ["Verdict: rejected: the bot forfeited the smoke match (it died, or faulted too often).",
              "Watch it: http://127.0.0.1:8131/replays/41/#view=0", "--- the bot's stderr ---",
              "starting up", "[ludus] step 1", "thinking about step 1", "[ludus] cpu limit reached",
              "[ludus] step 3", "Traceback (most recent call last):", "  File \"bot.py\", line 9", "KeyError: 'x'"]
    return "\n".join(lines) + "\n"


def test_it_reads_the_log_into_faults_verdict_and_stderr_by_step(settings: Any) -> None:
    log = read_log(rejected_log(settings))
    assert [f.text for f in log.faults] == ["step 3 (feed): timeout: no answer in 1000 ms", "step 5 (feed): bad_json"]
    assert [f.link for f in log.faults] == ["/replays/41/#step=3&view=0", "/replays/41/#step=5&view=0"]
    assert log.verdict.startswith("Verdict: rejected") and log.watch == "/replays/41/#view=0"
    assert [(s.step, s.lines) for s in log.stderr] == [
        (None, ["starting up"]), (1, ["thinking about step 1"]),
        (3, ["Traceback (most recent call last):", '  File "bot.py", line 9', "KeyError: 'x'"])]
    assert log.notes == ["cpu limit reached"] and len(log.summary) == 2


def test_a_log_of_another_shape_is_kept_whole(settings: Any) -> None:
    text = "rejected: bot.py does not compile, so it was not run. Fix the error and try again.\nbot.py, line 1: x"
    log = read_log(text)
    assert log.summary == text.splitlines() and not log.faults and not log.has_stderr and not log.verdict


def test_the_author_reads_a_rejected_version_with_what_to_do_next(client: Client, alice: Any, bob: Any,
                                                                  settings: Any) -> None:
    bot = Bot.objects.create(owner=alice, name="hungry", game="evolution")
    version = BotVersion.objects.create(bot=bot, number=2, source=b"x", filename="hungry.py",
                                        status=BotVersion.Status.REJECTED, validation_log=rejected_log(settings))
    client.force_login(alice)
    page = client.get(f"/versions/{version.pk}/").content.decode()
    assert '<a href="/replays/41/#step=3&amp;view=0">see step in the viewer</a>' in page
    assert "8131" not in page.partition('<details class="vlog-raw">')[0]  # the links follow this site
    next_steps = page.partition('<h3 id="next-h">What next</h3>')[2].partition("</section>")[0]
    assert '<a href="/replays/41/#step=3&amp;view=0">Open the first fault in the viewer</a>' in next_steps
    assert "manage.py try_bot hungry.py --game evolution" in next_steps and "it becomes v3" in next_steps
    assert "<summary>Step 3 <span" in page and "KeyError: &#x27;x&#x27;" in page
    client.force_login(bob)
    other = client.get(f"/versions/{version.pk}/").content.decode()
    assert "What next" not in other and "KeyError" not in other and "/replays/41/" not in other


def test_an_active_version_has_no_what_next(client: Client, alice: Any) -> None:
    bot = Bot.objects.create(owner=alice, name="fine", game="evolution")
    version = BotVersion.objects.create(bot=bot, number=1, source=b"x", status=BotVersion.Status.ACTIVE,
                                        validation_log="Verdict: active: the bot played the whole game without a "
                                                       "fault.\n--- the bot's stderr ---\n(empty)\n")
    client.force_login(alice)
    page = client.get(f"/versions/{version.pk}/").content.decode()
    assert "What next" not in page and "Verdict: active" in page and "(empty)" in page
