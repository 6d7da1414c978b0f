"""The bot author's loop: from a fault printed by try_bot (and listed by the API) to that step in the viewer."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from e2e_pages import log_in
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "tournaments" / "fixtures"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed: run `make sysdeps`")


@needs_bwrap
def test_the_url_try_bot_prints_for_a_fault_opens_the_viewer_on_that_fault(
    page: Any, live_server: Any, settings: Any, builtin_versions: Any, check_a11y: Any, screenshot: Any
) -> None:
    settings.LUDUS_SITE_URL = live_server.url
    out = io.StringIO()
    call_command("try_bot", str(FIXTURES / "out_of_range.py"), "--game", "evolution", "--against", "greedy",
                 "--players", "2", stdout=out)
    printed = re.findall(r"^    step (\d+) \(\w+\): out_of_range.*\n      (http\S+)$", out.getvalue(), re.MULTILINE)
    assert len(printed) == 3, out.getvalue()
    step, url = printed[1]
    page.goto(url)
    expect(page.locator("#board")).to_have_attribute("data-step", step)
    expect(page.locator("#board")).to_have_attribute("data-view", "0")
    expect(page.locator("#view-select")).to_have_value("0")
    expect(page.locator("#step-counter")).to_have_text(re.compile(rf"^{step} / \d+$"))
    expect(page.locator("#decision-fault")).to_contain_text("Fault: out of range")
    expect(page.locator(f"#eventlog > li[data-step='{step}']")).to_contain_text("fault: out of range")
    check_a11y(page)
    screenshot(page, "fault-deep-link")
    # Stepping keeps the link in the address bar, so it can be copied from any step.
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(rf"#step={int(step) + 1}&view=0$"))
    # A hand-edited link moves the viewer there.
    page.evaluate("location.hash = '#step=2&view=0'")
    expect(page.locator("#board")).to_have_attribute("data-step", "2")


@needs_bwrap
def test_the_owner_reads_their_bots_stderr_beside_each_step_and_no_one_else_does(
    page: Any, alice: Any, charlie: Any, check_a11y: Any, screenshot: Any
) -> None:
    from e2e_matches import entrants, schedule

    from tournaments.models import Bot, BotVersion
    from workers.runner import run_match

    bot = Bot.objects.create(owner=alice, name="chatty", game="evolution")
    chatty = BotVersion.objects.create(bot=bot, number=1, filename="chatty_bot.py", status=BotVersion.Status.ACTIVE,
                                       source=(ROOT / "tests" / "replays" / "fixtures" / "chatty_bot.py").read_bytes())
    _, [match] = schedule("evolution", 2, versions=[chatty, *entrants(1)])
    assert run_match(match.pk) == "finished"
    mine = next(i + 1 for i, a in enumerate(match.replay.document()["actions"]) if a["seat"] == 0 and i > 2)
    log_in(page, "alice", "alice-password-1")
    page.goto(f"/replays/{match.pk}/#step={mine}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(mine))
    expect(page.locator("#stderr pre[data-seat='0']")).to_have_text(f"chatty: thinking about seq {mine}")
    page.keyboard.press("Home")
    expect(page.locator("#stderr pre[data-seat='0']")).to_have_text("chatty: up")
    check_a11y(page)
    screenshot(page, "owner-stderr")
    page.context.clear_cookies()
    log_in(page, "charlie", "charlie-password-1")
    page.goto(f"/replays/{match.pk}/#step={mine}")
    expect(page.locator("#board")).to_have_attribute("data-step", str(mine))
    expect(page.locator("#stderr-panel")).to_be_hidden()
    assert "thinking about" not in page.content()


def test_an_author_enters_and_leaves_an_open_ladder_from_the_bot_page(
    page: Any, alice: Any, check_a11y: Any, screenshot: Any
) -> None:
    from e2e_matches import owned_builtin

    from tournaments.models import Ladder, LadderEntry

    version = owned_builtin(alice, "alices-greedy")
    ladder = Ladder.objects.create(name="open evolution", game="evolution", players_per_match=2, is_open=True)
    log_in(page, "alice", "alice-password-1")
    page.goto(f"/bots/{version.bot_id}/")
    row = page.locator(f".ladder-entries li[data-ladder='{ladder.pk}']")
    row.get_by_role("button", name="Enter v1").click()
    expect(page.locator("main .alert.good")).to_have_text("alices-greedy@1 entered on open evolution.")
    expect(row.get_by_role("button", name="Withdraw v1")).to_be_visible()
    assert LadderEntry.objects.get(ladder=ladder).withdrawn_at is None
    check_a11y(page)
    screenshot(page, "bot-page-open-ladder")
    row.get_by_role("button", name="Withdraw v1").click()
    expect(page.locator("main .alert.good")).to_have_text("alices-greedy@1 withdrawn from open evolution.")
    expect(row.get_by_role("button", name="Enter v1")).to_be_visible()
    page.goto(f"/ladders/{ladder.pk}/")
    expect(page.locator(".lede")).to_contain_text("open")
