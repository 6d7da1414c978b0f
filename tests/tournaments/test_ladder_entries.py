"""Self-serve ladders: authors enter and withdraw their own active versions on open ladders (service, API, page).

Personas: alice owns the bots, charlie is an outsider, root is staff. Hostile cases first."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from tournaments.models import Bot, BotVersion, Ladder, LadderEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder() -> Ladder:
    return Ladder.objects.create(name="open tinynim", game="tinynim", players_per_match=2, is_open=True)


def version_of(owner: Any, name: str, status: str = BotVersion.Status.ACTIVE, game: str = "tinynim",
               visibility: str = Bot.Visibility.PUBLIC) -> BotVersion:
    bot = Bot.objects.create(owner=owner, name=name, game=game, visibility=visibility)
    return BotVersion.objects.create(bot=bot, number=1, builtin="greedy", status=status, source=f"{name}".encode(),
                                     filename="engine/bots/greedy")


def api(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def enter(user: Any, ladder: Ladder, version: BotVersion | int) -> Any:
    pk = version if isinstance(version, int) else version.pk
    return api(user).post(f"/api/ladders/{ladder.pk}/entries/", {"bot_version": pk}, content_type="application/json")


def withdraw(user: Any, ladder: Ladder, version: BotVersion) -> Any:
    return api(user).delete(f"/api/ladders/{ladder.pk}/entries/{version.pk}/")


def detail(response: Any) -> str:
    return str(response.json()["detail"][0])


def test_anonymous_cannot_enter(ladder: Ladder, alice: Any) -> None:
    version = version_of(alice, "mine")
    assert enter(None, ladder, version).status_code in (401, 403)
    assert not LadderEntry.objects.exists()


def test_an_outsider_cannot_enter_or_withdraw_someone_elses_version(ladder: Ladder, alice: Any,
                                                                      charlie: Any) -> None:
    public, private = version_of(alice, "public"), version_of(alice, "secret", visibility=Bot.Visibility.PRIVATE)
    assert detail(enter(charlie, ladder, public)) == "public@1 is not yours: only its owner enters it on a ladder"
    assert detail(enter(charlie, ladder, private)) == f"bot version {private.pk} does not exist"  # like a missing one
    assert detail(enter(charlie, ladder, 999999)) == "bot version 999999 does not exist"
    assert enter(alice, ladder, public).status_code == 201
    refused = withdraw(charlie, ladder, public)
    assert refused.status_code == 400 and "is not yours" in detail(refused)
    assert LadderEntry.objects.get().withdrawn_at is None


def test_a_closed_ladder_is_for_its_organiser(ladder: Ladder, alice: Any) -> None:
    Ladder.objects.filter(pk=ladder.pk).update(is_open=False)
    response = enter(alice, ladder, version_of(alice, "mine"))
    assert response.status_code == 400
    assert detail(response) == "ladder 'open tinynim' is not open to entries: its organiser enters bots"


@pytest.mark.parametrize(("status", "game", "error"), [
    (BotVersion.Status.REJECTED, "tinynim", "mine@1 is rejected, not active"),
    (BotVersion.Status.PENDING, "tinynim", "mine@1 is pending, not active"),
    (BotVersion.Status.ACTIVE, "marine", "mine@1 plays marine, not tinynim"),
])
def test_only_an_active_version_of_the_ladders_game_enters(ladder: Ladder, alice: Any, status: str, game: str,
                                                            error: str) -> None:
    response = enter(alice, ladder, version_of(alice, "mine", status=status, game=game))
    assert response.status_code == 400 and detail(response) == error


def test_bad_input_is_one_clear_line(ladder: Ladder, alice: Any) -> None:
    for body, error in (({"bot_version": "x"}, {"bot_version": ["A valid integer is required."]}),
                        ({"bot_version": 1, "extra": 1}, {"extra": ["unknown field 'extra'"]}),
                        ({}, {"bot_version": ["This field is required."]})):
        response = api(alice).post(f"/api/ladders/{ladder.pk}/entries/", body, content_type="application/json")
        assert (response.status_code, response.json()) == (400, error)
    assert api(alice).post("/api/ladders/999999/entries/", {"bot_version": 1},
                           content_type="application/json").status_code == 404


def test_the_owner_enters_withdraws_and_enters_again(ladder: Ladder, alice: Any) -> None:
    version = version_of(alice, "mine")
    entered = enter(alice, ladder, version)
    assert entered.status_code == 201 and entered.json()["withdrawn_at"] is None
    assert detail(enter(alice, ladder, version)) == "mine@1 is already on ladder 'open tinynim'"
    left = withdraw(alice, ladder, version)
    assert left.status_code == 200 and left.json()["withdrawn_at"] is not None
    assert detail(withdraw(alice, ladder, version)) == "mine@1 is not on ladder 'open tinynim'"
    assert enter(alice, ladder, version).status_code == 201
    assert LadderEntry.objects.get().withdrawn_at is None
    assert api(None).get(f"/api/ladders/{ladder.pk}/").json()["is_open"] is True


def test_staff_enter_on_any_ladder(ladder: Ladder, alice: Any, admin_user: Any) -> None:
    Ladder.objects.filter(pk=ladder.pk).update(is_open=False)
    assert enter(admin_user, ladder, version_of(alice, "mine")).status_code == 201


def test_the_bot_page_enters_and_withdraws_with_a_button(ladder: Ladder, alice: Any, charlie: Any) -> None:
    version = version_of(alice, "mine")
    page = api(alice).get(f"/bots/{version.bot_id}/").content.decode()
    assert "Enter v1" in page and "open tinynim" in page
    assert "Enter v1" not in api(charlie).get(f"/bots/{version.bot_id}/").content.decode()
    done = api(alice).post(f"/ladders/{ladder.pk}/entries/", {"bot_version": version.pk, "action": "enter"},
                           follow=True)
    assert "mine@1 entered on open tinynim." in done.content.decode() and "Withdraw v1" in done.content.decode()
    refused = api(charlie).post(f"/ladders/{ladder.pk}/entries/", {"bot_version": version.pk, "action": "withdraw"},
                                follow=True)
    assert "is not yours" in refused.content.decode()
    assert LadderEntry.objects.get().withdrawn_at is None
    api(alice).post(f"/ladders/{ladder.pk}/entries/", {"bot_version": version.pk, "action": "withdraw"})
    assert LadderEntry.objects.get().withdrawn_at is not None


def test_run_ladder_without_a_ladder_says_how_to_make_one() -> None:
    with pytest.raises(CommandError, match=r"no unpaused ladder to run: `manage.py demo --no-serve` makes an open"):
        call_command("run_ladder", stdout=io.StringIO())
