"""The pages of issue 34 in a browser, at 1440x900 and 390x844 (and dark where colour is the point): the round
robin's cross-table and its links to the sets, the bracket's set scores and lines, the ladder's next round, the
sign-up form, the rules pages and a rejected version's validation log; all axe-clean, screenshots in
artifacts/screenshots/."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_matches import entrants
from playwright.sync_api import expect

from replays.frames import frames
from replays.models import Replay
from tournaments import ladder_clock
from tournaments.builtins import ensure_builtin
from tournaments.ladders import join_ladder, schedule_ladder
from tournaments.models import Bot, BotVersion, Ladder, Match, Tournament
from tournaments.scheduling import start_tournament
from workers.runner import run_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("verify_here")]
SIZES = {"desk": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=["desk", "phone"])
def sized(request: Any, page: Any) -> Iterator[tuple[str, Any]]:
    page.set_viewport_size(SIZES[request.param])
    yield request.param, page


def play_out(tournament: Tournament) -> None:
    start_tournament(tournament, enqueue=False)
    while (match := Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("pk").first()):
        assert run_match(match.pk) == "finished"


def final_parts(replay: Replay) -> list[dict[str, int]]:
    """Each seat's score parts in the last frame's view (the engine's own breakdown)."""
    parts: list[dict[str, int]] = frames(replay.document())[-1]["view"]["score_parts"]
    return parts


def fits(page: Any, size: str) -> None:
    """Nothing makes the page itself scroll sideways (wide tables scroll in their own box)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]


def test_a_round_robin_reads_as_a_cross_table_linked_to_its_sets(sized: tuple[str, Any], tinynim: Any,
                                                                  make_tournament: Any, check_a11y: Any,
                                                                  screenshot: Any) -> None:
    size, page = sized
    cup = make_tournament(entrants=("greedy", "random", "greedy-2", "random-2"), games_per_set=2, name="rr cup")
    play_out(cup)
    page.goto(f"/tournaments/{cup.pk}/")
    table = page.locator("table.cross")
    expect(table.locator("tbody tr")).to_have_count(4)
    expect(table.locator("td.self")).to_have_count(4)
    expect(table.locator("td a")).to_have_count(12)
    expect(page.locator("details.all-rounds")).not_to_have_attribute("open", re.compile(".*"))
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"cross-table-{size}")
    cell = table.locator("td a").first
    anchor = cell.get_attribute("href")
    cell.click()  # the set it links to opens out of the folded rounds
    target = page.locator(str(anchor))
    expect(target).to_be_visible()
    expect(target.locator(".game")).to_have_count(2)
    page.emulate_media(color_scheme="dark")
    check_a11y(page)
    screenshot(page, f"cross-table-{size}-dark")


def test_a_bracket_shows_set_scores_and_lines_between_rounds(sized: tuple[str, Any], tinynim: Any,
                                                             make_tournament: Any, check_a11y: Any,
                                                             screenshot: Any) -> None:
    size, page = sized
    cup = make_tournament(entrants=("greedy", "random", "greedy-2", "random-2"), format="single_elimination",
                          games_per_set=3, name="knockout cup")
    play_out(cup)
    page.goto(f"/tournaments/{cup.pk}/")
    sets = page.locator(".bracket ol.set")
    expect(sets).to_have_count(3)
    for i in range(3):
        first = sets.nth(i).locator("li").first
        expect(first).to_have_class("through")
        expect(first.locator(".wins")).to_have_text(re.compile(r"^[0-3]$"))
    assert_joins_line_up(page, expected_joins(cup))
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"bracket-sets-{size}")


def expected_joins(tournament: Tournament) -> dict[str, set[str]]:
    """Each set or bye of a later round (its anchor on the page) and the sets and byes of the round before whose
    entrants sit at it, read from the matches and byes themselves."""
    seated: dict[int, dict[frozenset[int], str]] = {}
    for round_ in sorted(set(Match.objects.filter(tournament=tournament).values_list("round", flat=True))):
        matches = Match.objects.filter(tournament=tournament, round=round_).order_by("pk")
        tables = list(dict.fromkeys(frozenset(s.bot_version_id for s in m.seats.all()) for m in matches))
        seated[round_] = {entrants: f"table-{round_}-{i}" for i, entrants in enumerate(tables, start=1)}
        byes = [e.bot_version_id for e in tournament.entry_set.order_by("pk") if round_ in e.byes]
        seated[round_].update({frozenset([v]): f"bye-{round_}-{i}" for i, v in enumerate(byes, start=1)})
    return {anchor: {a for entrants_before, a in seated[round_ - 1].items() if entrants & entrants_before}
            for round_ in seated if round_ - 1 in seated for entrants, anchor in seated[round_].items()}


CENTRES = """(el, ids) => {
  const box = r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom, middle: (r.top + r.bottom) / 2});
  const join = el.closest('.bracket').querySelector(`.join-v[data-to="${el.id}"]`);
  return {to: box(el.getBoundingClientRect()), join: join && box(join.getBoundingClientRect()),
          from: ids.map(id => box(document.getElementById(id).getBoundingClientRect()))};
}"""


def assert_joins_line_up(page: Any, joins: dict[str, set[str]]) -> None:
    """Each later set names its feeders, and its join runs down the gap between the rounds from the highest centre
    among them and it to the lowest (within 3 px), the feeders' own centres included."""
    assert joins and any(len(feeders) > 1 for feeders in joins.values())
    for anchor, feeders in joins.items():
        fed = page.locator(f"#{anchor}")
        assert set(str(fed.get_attribute("data-from")).split()) == feeders
        at = fed.evaluate(CENTRES, sorted(feeders))
        assert at["join"] is not None, f"no join into {anchor}"
        middles = [f["middle"] for f in at["from"]] + [at["to"]["middle"]]
        assert abs(at["join"]["top"] - min(middles)) <= 3 and abs(at["join"]["bottom"] - max(middles)) <= 3, at
        assert all(f["right"] <= at["join"]["left"] for f in at["from"]) and at["join"]["right"] <= at["to"]["left"]
        if len(feeders) > 1:  # a real bracket: the set sits between the two it joins
            assert min(middles[:-1]) - 3 <= at["to"]["middle"] <= max(middles[:-1]) + 3, at


def test_a_bracket_with_byes_joins_each_set_to_the_sets_that_feed_it(sized: tuple[str, Any], tinynim: Any,
                                                                     builtin_versions: dict[str, Any],
                                                                     make_tournament: Any, check_a11y: Any,
                                                                     screenshot: Any) -> None:
    size, page = sized
    for name in ("greedy-3", "random-3"):
        builtin_versions[name] = ensure_builtin(name, name.partition("-")[0])
    cup = make_tournament(entrants=("greedy", "random", "greedy-2", "random-2", "greedy-3", "random-3"),
                          format="single_elimination", name="six cup")
    play_out(cup)
    page.goto(f"/tournaments/{cup.pk}/")
    expect(page.locator(".bracket .round")).to_have_count(3)  # 3 sets; a set and a bye; the final
    joins = expected_joins(cup)
    assert_joins_line_up(page, joins)
    check_a11y(page)
    screenshot(page, f"bracket-lines-{size}")
    page.locator(".bracket details.set-games summary").first.click()  # a set opens: the lines follow it
    assert_joins_line_up(page, joins)
    page.emulate_media(color_scheme="dark")
    color = page.locator(".bracket .join-v").first.evaluate("el => getComputedStyle(el).borderLeftColor")
    assert color == "rgb(161, 169, 182)"  # the dark --muted: a light line on the dark page
    check_a11y(page)
    screenshot(page, f"bracket-lines-{size}-dark")


def test_the_ladder_says_when_its_next_round_comes(sized: tuple[str, Any], check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    ladder = Ladder.objects.create(name="open marine", game="marine", players_per_match=2, is_open=True, max_queued=2,
                                   options={"length": "short", "max_rounds": 2})
    join_ladder(ladder, entrants(4))
    ladder_clock.cache.delete(ladder_clock.KEY)  # the live server shares this process's cache
    for _ in range(2):
        for match in schedule_ladder(ladder.pk, enqueue=False):
            assert run_match(match.pk) == "finished"
    page.goto(f"/ladders/{ladder.pk}/")
    expect(page.locator("#next-round")).to_have_text(re.compile(r"^No round has come lately"))
    ladder_clock.cache.set(ladder_clock.KEY, time.time() + 600, 900)  # a clock's round, as beat or the demo records it
    page.reload()
    expect(page.locator("#next-round")).to_have_text(re.compile(r"^Next round in about \d+ s \("))
    expect(page.locator("table.standings tbody tr")).to_have_count(4)
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"ladder-{size}")


def test_an_author_signs_up_in_the_browser(sized: tuple[str, Any], check_a11y: Any, screenshot: Any,
                                           django_user_model: Any) -> None:
    size, page = sized
    page.goto("/")
    page.get_by_role("link", name="Sign up").click()
    expect(page.locator("h1")).to_have_text("Sign up")
    check_a11y(page)
    page.fill("#id_username", f"newcomer-{size}")
    page.fill("#id_password1", "a fine long passphrase")
    page.fill("#id_password2", "a fine long passphrase with a typo")
    page.keyboard.press("Enter")
    expect(page.locator(".error")).to_contain_text("didn’t match")
    check_a11y(page)
    screenshot(page, f"signup-error-{size}")
    page.fill("#id_password1", "a fine long passphrase")
    page.fill("#id_password2", "a fine long passphrase")
    page.click("form.stack button[type=submit]")
    expect(page).to_have_url(re.compile(r"/upload/$"))
    expect(page.locator("header")).to_contain_text(f"Log out newcomer-{size}")
    assert django_user_model.objects.filter(username=f"newcomer-{size}", is_staff=False).exists()


@pytest.mark.parametrize("game", ["evolution", "marine"])
def test_the_rules_read_as_a_summary_with_the_exact_rules_behind_a_link(sized: tuple[str, Any], game: str,
                                                                       check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    page.goto(f"/rules/{game}/")
    expect(page.locator("article.rules h2").first).to_have_text("How a round goes")
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"rules-summary-{game}-{size}")
    section = "Scoring" if game == "evolution" else "The end of the game"
    page.locator(".rules-contents a", has_text=section).first.click()
    expect(page).to_have_url(re.compile(rf"/rules/{game}/spec/#"))
    heading = page.locator(f"#{page.url.partition('#')[2]}")
    expect(heading).to_be_in_viewport()
    fits(page, size)
    check_a11y(page)


def test_a_rejected_versions_log_says_what_next(sized: tuple[str, Any], alice: Any, check_a11y: Any,
                                                screenshot: Any) -> None:
    size, page = sized
    bot = Bot.objects.create(owner=alice, name="hungry", game="evolution")
    log = ("Smoke match: evolution, 2 players, seed 7; your bot at seat 0 against greedy (built-in).\n"
           "Result: rank 2 of 2, score 3; the bot was asked 5 decision(s), 1 fault(s), forfeited.\n"
           "Faults (step, decision kind, code, detail; the viewer at that step):\n"
           "  step 3 (feed): died: exit status 1\n    http://127.0.0.1:8000/replays/9/#step=3&view=0\n"
           "Verdict: rejected: the bot forfeited the smoke match (it died, or faulted too often).\n"
           "Watch it: http://127.0.0.1:8000/replays/9/#view=0\n--- the bot's stderr ---\nhello\n[ludus] step 3\n"
           "Traceback (most recent call last):\n  File \"main.py\", line 3, in act\nKeyError: 'food'\n")
    version = BotVersion.objects.create(bot=bot, number=1, source=b"x", filename="hungry.py", validation_log=log,
                                        status=BotVersion.Status.REJECTED)
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "alice-password-1")
    page.click("form.stack button[type=submit]")
    page.goto(f"/versions/{version.pk}/")
    expect(page.locator(".vlog-faults a")).to_have_attribute("href", "/replays/9/#step=3&view=0")
    expect(page.locator(".vlog-next")).to_contain_text("manage.py try_bot hungry.py --game evolution")
    expect(page.locator(".vlog-stderr summary").last).to_contain_text("Step 3")
    expect(page.locator(".vlog-stderr pre").last).to_contain_text("KeyError: 'food'")
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"validation-log-{size}")


def test_evolutions_final_result_says_what_each_score_is_made_of(sized: tuple[str, Any], play: Any,
                                                                  check_a11y: Any, screenshot: Any) -> None:
    size, page = sized
    match = play("evolution", 3)
    last = len(Replay.objects.get(match=match).action_log())
    page.goto(f"/replays/{match.pk}/#step={last}")
    expect(page.locator("#final-panel")).to_be_visible()
    parts = final_parts(Replay.objects.get(match=match))
    for seat in match.seats.order_by("number"):
        breakdown = page.locator(f"#final-scores [data-seat='{seat.number}'] .score-parts")
        expect(breakdown).to_have_text(" + ".join(f"{k} {v}" for k, v in parts[seat.number].items()))
        assert sum(parts[seat.number].values()) == seat.score
    fits(page, size)
    check_a11y(page)
    screenshot(page, f"evolution-final-{size}")
