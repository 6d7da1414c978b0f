"""Browser tests: Playwright (sync API) drives the system Chromium against pytest-django's live server.

Every page a test opens is checked for console errors and page errors, and `check_a11y` runs axe-core (vendored in
vendor/axe.min.js) for the WCAG 2 A and AA rules. Matches are played by the real runner on built-in bots.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
AXE = Path(__file__).with_name("vendor") / "axe.min.js"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Module-scoped, so the flag below never outlives the browser tests."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is not installed: run `make sysdeps` (make test does)", pytrace=False)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)  # a busy 2-core machine: generous, and it only matters when failing
    # Playwright's sync API keeps an event loop on the main thread; the tests' own ORM calls are still synchronous.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class Problems:
    """Console errors and uncaught page errors seen by a page; every test ends by asserting there are none."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any) -> None:
        page.on("console", lambda message: self.errors.append(f"console: {message.text}")
                if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))


@pytest.fixture
def problems() -> Problems:
    return Problems()


@pytest.fixture
def page(browser: Any, live_server: Any, problems: Problems) -> Iterator[Any]:
    """A fresh browser context on the live server, desktop-sized; fails the test on any console error."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    problems.watch(page)
    yield page
    context.close()
    assert problems.errors == [], "\n".join(problems.errors)


@pytest.fixture
def check_a11y() -> Callable[[Any], None]:
    """Run axe-core in the page and fail on any WCAG 2 A/AA violation (labels, contrast, focus, names...)."""

    def check(page: Any) -> None:
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            # Evaluated through the browser's debugging protocol, which the pages' Content-Security-Policy does not
            # govern: a <script> tag (add_script_tag) is an inline script, which it rightly refuses.
            page.evaluate(AXE.read_text())
        result = page.evaluate(
            "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
            AXE_TAGS)
        violations = [
            f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] if n["target"] else "?"
                                                                        for n in v["nodes"][:5])
            for v in result["violations"]
        ]
        assert violations == [], f"{page.url}:\n" + "\n".join(violations)

    return check


@pytest.fixture
def screenshot() -> Callable[..., None]:
    """Save a page (whole, unless full_page=False) or a locator as artifacts/screenshots/NAME.png, for people to look
    at: with LUDUS_SCREENSHOTS=1 (`make test-e2e`) only. No test reads them, and `make test` spared about a second of
    Chromium's CPU a test (a full-page capture is rendered and PNG-encoded: 0.2-0.4 s each)."""

    def take(target: Any, name: str, **options: Any) -> None:
        if os.environ.get("LUDUS_SCREENSHOTS") != "1":
            return
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        if hasattr(target, "goto"):  # a page, not a locator
            options.setdefault("full_page", True)
        target.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **options)

    return take


@pytest.fixture
def play() -> Callable[..., Any]:
    """Create a one-match tournament of built-in bots and play it with the real runner; return the match."""
    from e2e_matches import play_match

    return play_match
