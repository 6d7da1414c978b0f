"""The bot author's loop: from a fault printed by try_bot (and listed by the API) to that step in the viewer."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
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
