"""Unrated work (try-outs, validations, branches, version tests) is kept apart from the public pages and the records:
not on the home page, not in a bot's record or fault counts, no system ladder listed as a public ladder; one click
away for whoever may see it (docs/tournaments.md, "Unrated games")."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tournaments.bot_lifecycle import fault_reason
from tournaments.builtins import ensure_builtin
from tournaments.models import Bot, BotVersion, Ladder, Match
from tournaments.new_matches import create_match
from tournaments.system_ladders import BRANCHES_LADDER, VALIDATION_LADDER, system_ladder

pytestmark = pytest.mark.django_db


def finished(ladder: Ladder, seats: list[BotVersion], *, rated: bool, faults: int = 0, forfeit: bool = False,
             **fields: Any) -> Match:
    """A finished match of the ladder: seat 0 ranks last, with these faults (and forfeit), the others share first."""
    match = create_match(ladder, seats, 7, rated=rated, **fields)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now())
    for seat in match.seats.all():
        seat.rank, seat.score = (len(seats), 0) if seat.number == 0 else (1, 5)
        seat.faults, seat.forfeited = (faults, forfeit) if seat.number == 0 else (0, False)
        seat.save()
    return match


@pytest.fixture
def world(alice: Any) -> dict[str, Any]:
    """alice's public bot: v1 active with one rated game; v2 rejected by a validation match it forfeited with
    faults; three try-outs and a branch against the built-in greedy."""
    bot = Bot.objects.create(owner=alice, name="hungry", game="evolution")
    v1 = BotVersion.objects.create(bot=bot, number=1, source=b"x", status=BotVersion.Status.ACTIVE)
    v2 = BotVersion.objects.create(bot=bot, number=2, source=b"y", status=BotVersion.Status.REJECTED)
    greedy = ensure_builtin("greedy")
    ladder = Ladder.objects.create(name="open evolution", game="evolution", players_per_match=2, is_open=True)
    rated = finished(ladder, [v1, greedy], rated=True)
    validation = finished(system_ladder(VALIDATION_LADDER, "evolution", 2, "unrated"), [v2, greedy], rated=False,
                          faults=3, forfeit=True)
    tryouts = [finished(system_ladder("try_bot ", "evolution", 2, "unrated"), [greedy, v1], rated=False)
               for _ in range(3)]
    branch = finished(system_ladder(BRANCHES_LADDER, "evolution", 2, "unrated"), [v1, greedy], rated=False,
                      parent=rated, branch_step=3)
    return {"bot": bot, "greedy": greedy, "rated": rated, "validation": validation, "tryouts": tryouts,
            "branch": branch, "unrated": [validation, *tryouts, branch]}


def match_links(page: str) -> set[int]:
    return {m.pk for m in Match.objects.all() if f'href="/replays/{m.pk}/"' in page}


def test_the_home_page_shows_rated_matches_only(client: Client, world: dict[str, Any]) -> None:
    home = client.get("/").content.decode()
    assert match_links(home) == {world["rated"].pk}
    for name in ("validation evolution", "try_bot evolution", "branches evolution"):
        assert name not in home


def test_a_bots_record_and_fault_counts_leave_unrated_games_out(client: Client, world: dict[str, Any]) -> None:
    page = client.get(f"/bots/{world['bot'].pk}/").content.decode()
    record = page.partition('id="record-h"')[2].partition("</section>")[0]
    assert "<dt>Games</dt><dd>1</dd>" in record and "<dt>Faults</dt><dd>0</dd>" in record
    assert "<dt>Forfeits</dt><dd>0</dd>" in record  # the rejected v2's validation forfeit is not one of the bot's
    assert match_links(page) == {world["rated"].pk}
    builtin = client.get(f"/bots/{world['greedy'].bot_id}/").content.decode()
    assert "<dt>Games</dt><dd>1</dd>" in builtin  # three try-outs, a validation and a branch later
    assert fault_reason(world["bot"]) == ""


def test_a_forfeited_validation_does_not_flag_the_bot(world: dict[str, Any], settings: Any) -> None:
    settings.LUDUS_FLAG_FORFEITS = 1
    assert fault_reason(world["bot"]) == ""
    finished(world["rated"].ladder, [world["bot"].versions.get(number=1), world["greedy"]], rated=True, faults=1,
             forfeit=True)
    assert fault_reason(world["bot"]).startswith("forfeited its last 1 matches")


def test_system_ladders_are_not_public_ladder_pages(client: Client, world: dict[str, Any]) -> None:
    for match in world["unrated"]:
        page = client.get(f"/ladders/{match.ladder_id}/")
        body = page.content.decode()
        assert page.status_code == 200 and "Unrated games" in body and "No entrants yet" not in body
        assert "<th scope=\"col\" class=\"num greek\">μ</th>" not in body  # no standings
        assert match_links(body) == set()  # anonymous: nothing to see
    matches = client.get("/matches/").content.decode()
    assert match_links(matches) == {world["rated"].pk}
    assert "validation evolution" not in matches and "try_bot evolution" not in matches


def test_unrated_games_are_one_click_away_for_their_owner(client: Client, world: dict[str, Any], alice: Any,
                                                          bob: Any) -> None:
    client.force_login(alice)
    bot_page = client.get(f"/bots/{world['bot'].pk}/").content.decode()
    link = f'href="/matches/?bot={world["bot"].pk}&amp;kind=unrated"'
    assert link in bot_page
    unrated = client.get(f"/matches/?bot={world['bot'].pk}&kind=unrated").content.decode()
    assert match_links(unrated) == {m.pk for m in world["unrated"]}
    assert 'href="/matches/?kind=unrated"' in client.get("/").content.decode()
    client.force_login(bob)  # not his bot: no link, and the list stays empty however it is asked
    assert link not in client.get(f"/bots/{world['bot'].pk}/").content.decode()
    assert match_links(client.get(f"/matches/?bot={world['bot'].pk}&kind=unrated").content.decode()) == set()
    assert match_links(client.get("/matches/?kind=unrated").content.decode()) == set()
    ladder = client.get(f"/ladders/{world['validation'].ladder_id}/").content.decode()
    assert match_links(ladder) == set()


def test_staff_see_every_unrated_game_and_its_ladder(client: Client, world: dict[str, Any], admin_user: Any) -> None:
    client.force_login(admin_user)
    assert match_links(client.get("/matches/?kind=unrated").content.decode()) == {m.pk for m in world["unrated"]}
    ladder = client.get(f"/ladders/{world['tryouts'][0].ladder_id}/").content.decode()
    assert match_links(ladder) == {m.pk for m in world["tryouts"]}


def test_a_bad_kind_is_ignored_as_the_rated_list(client: Client, world: dict[str, Any]) -> None:
    page = client.get("/matches/?kind=%00nonsense").content.decode()
    assert match_links(page) == {world["rated"].pk}


def test_the_head_to_head_counts_no_unrated_work(world: dict[str, Any], alice: Any) -> None:
    from replays.head_to_head import head_to_head

    assert head_to_head(alice, world["bot"])["matches"] == 1
    assert head_to_head(alice, world["greedy"].bot)["matches"] == 1
