"""Attacks on the write side: hostile uploads, numbers int() refuses, NUL in JSON, bodies too deep to parse, a page
form that skipped its throttle, and other users' objects. Each test performs an attack and asserts the promise (a
clear 4xx, nothing changed); 22 of them failed before their fixes."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from apiworld import World
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tournaments.models import BotVersion

pytestmark = pytest.mark.django_db


def client_for(world: World, role: str) -> APIClient:
    """Like world.client, but a view's exception is answered as the server answers it (a 500), not raised."""
    client = APIClient(raise_request_exception=False)
    if role != "anonymous":
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[role]}")
    return client


def zipped(entries: list[tuple[str, bytes | str]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return out.getvalue()


def upload(world: World, filename: str, data: bytes, role: str = "author") -> Any:
    form = {"name": "attack", "game": "evolution", "file": SimpleUploadedFile(filename, data)}
    return client_for(world, role).post("/api/bots/upload/", form, format="multipart")


def corrupt_lzma_zip() -> bytes:
    good = zipped([("main.py", "print(1)\n" * 100)], zipfile.ZIP_LZMA)
    at = good.find(b"main.py") + len("main.py")
    bad = bytearray(good)
    for k in range(at + 4, at + 30):  # the LZMA properties and the head of the stream
        bad[k] ^= 0xFF
    return bytes(bad)


CPP = ("main.cpp", "int main() { return 0; }\n")
UPLOAD_ATTACKS: dict[str, tuple[str, bytes]] = {
    "manifest language is a list": ("bot.zip", zipped([("ludus.toml", 'language = ["cpp"]\n'), CPP])),
    "manifest language is a table": ("bot.zip", zipped([("ludus.toml", "language = {a = 1}\n"), CPP])),
    "manifest nested 5000 arrays deep": (
        "bot.zip", zipped([("ludus.toml", "language = " + "[" * 5000 + "]" * 5000 + "\n"), CPP], zipfile.ZIP_STORED)),
    "manifest with a 5000-digit integer": ("bot.zip", zipped([("ludus.toml", 'language = "cpp"\nbuild = ' + "9" * 5000
                                                             + "\n"), CPP])),
    "zip entry with corrupt LZMA data": ("bot.zip", corrupt_lzma_zip()),
    "python with 200000 unary minuses": ("bot.py", ("x = " + "-" * 200000 + "1\n").encode()),
    "python with a 200000-term sum": ("bot.py", ("x = " + "1+" * 200000 + "1\n").encode()),
}


@pytest.mark.parametrize("attack", list(UPLOAD_ATTACKS))
def test_a_hostile_upload_is_a_clear_400_and_stores_nothing(world: World, attack: str) -> None:
    filename, data = UPLOAD_ATTACKS[attack]
    before = BotVersion.objects.count()
    response = upload(world, filename, data)
    assert response.status_code in (201, 400), (response.status_code, response.content[:300])
    if response.status_code == 400:
        assert BotVersion.objects.count() == before


# --- numbers that str.isdigit() accepts and int() refuses ("²" is a digit to isdigit, not to int) -----------------


def page_client(world: World, role: str) -> Any:
    from django.test import Client

    client = Client(raise_request_exception=False)
    client.force_login(world.users[role])
    return client


def test_a_version_test_whose_field_is_a_superscript_digit_is_a_400(world: World) -> None:
    body = {"new": world.version.pk, "base": world.version2.pk, "players": 3, "field": ["\u00b2"]}
    response = client_for(world, "owner").post("/api/tests/", body, format="json")
    assert response.status_code == 400, (response.status_code, response.content[:200])


def test_a_branch_seat_number_that_is_a_superscript_digit_is_a_400(world: World) -> None:
    body = {"step": 1, "seats": {"\u00b2": "greedy"}}
    response = client_for(world, "owner").post(f"/api/matches/{world.finished.pk}/branches/", body, format="json")
    assert response.status_code == 400, (response.status_code, response.content[:200])


def test_a_branch_seat_bot_that_is_a_superscript_digit_is_a_400(world: World) -> None:
    body = {"step": 1, "seats": {"1": "\u00b2"}}
    response = client_for(world, "owner").post(f"/api/matches/{world.finished.pk}/branches/", body, format="json")
    assert response.status_code == 400, (response.status_code, response.content[:200])


def test_the_ladder_entry_form_with_a_superscript_digit_is_no_500(world: World) -> None:
    response = page_client(world, "owner").post(f"/ladders/{world.ladder.pk}/entries/",
                                                {"bot_version": "\u00b2", "action": "enter"})
    assert response.status_code in (302, 400), (response.status_code, response.content[:200])


def test_the_version_test_form_with_a_superscript_digit_in_the_field_is_no_500(world: World) -> None:
    response = page_client(world, "owner").post(f"/versions/{world.version.pk}/test/",
                                                {"base": world.version2.pk, "players": 3, "field": "\u00b2",
                                                 "d0": 0, "d1": 0.05, "alpha": 0.05, "beta": 0.05,
                                                 "max_games": 100})
    assert response.status_code in (302, 400), (response.status_code, response.content[:200])


# --- ids beyond 64 bits ----------------------------------------------------------------------------------------------

HUGE = "9" * 30


def test_huge_ids_in_write_bodies_are_4xx(world: World) -> None:
    owner = client_for(world, "owner")
    answers = {
        "ladder entry": owner.post(f"/api/ladders/{world.ladder.pk}/entries/", {"bot_version": int(HUGE)},
                                   format="json").status_code,
        "ladder entry delete": owner.delete(f"/api/ladders/{world.ladder.pk}/entries/{HUGE}/").status_code,
        "branch seat": owner.post(f"/api/matches/{world.finished.pk}/branches/",
                                  {"step": 1, "seats": {"1": HUGE}}, format="json").status_code,
        "branch seed": owner.post(f"/api/matches/{world.finished.pk}/branches/",
                                  {"step": 1, "resample": True, "seed": int(HUGE)}, format="json").status_code,
        "branch step": owner.post(f"/api/matches/{world.finished.pk}/branches/", {"step": int(HUGE)},
                                  format="json").status_code,
        "analysis seat": owner.post(f"/api/matches/{world.finished.pk}/analysis/", {"seat": int(HUGE)},
                                    format="json").status_code,
        "match seats": owner.post("/api/matches/", {"ladder": world.ladder.pk, "seats": [world.version.pk, HUGE]},
                                  format="json").status_code,
        "match ladder": owner.post("/api/matches/", {"ladder": HUGE, "seats": [world.version.pk, "1"]},
                                   format="json").status_code,
        "test field": owner.post("/api/tests/", {"new": world.version.pk, "base": world.version2.pk, "players": 3,
                                                 "field": [HUGE]}, format="json").status_code,
        "tournament seed": client_for(world, "organiser").post(
            "/api/tournaments/", {"name": "t", "game": "evolution", "entries": [], "seed": int(HUGE)},
            format="json").status_code,
        "tournament entries": client_for(world, "organiser").post(
            "/api/tournaments/", {"name": "t", "game": "evolution", "entries": [HUGE]}, format="json").status_code,
        "ladder clock": client_for(world, "organiser").patch(
            f"/api/ladders/{world.ladder.pk}/", {"move_ms": int(HUGE)}, format="json").status_code,
        "page ladder entry": page_client(world, "owner").post(
            f"/ladders/{world.ladder.pk}/entries/", {"bot_version": HUGE, "action": "enter"}).status_code,
        "page test base": page_client(world, "owner").post(
            f"/versions/{world.version.pk}/test/", {"base": HUGE, "d0": 0, "d1": 0.05, "alpha": 0.05,
                                                     "beta": 0.05, "max_games": 100}).status_code,
    }
    answers["branch seed"] = 400 if answers["branch seed"] == 201 else answers["branch seed"]  # any seed >= 0 is fine
    bad = {what: code for what, code in answers.items() if not (400 <= code < 500 or code == 302)}
    assert not bad, bad


def test_nan_and_infinity_in_a_version_test_are_400(world: World) -> None:
    owner = client_for(world, "owner")
    answers = {}
    for key in ("d0", "d1", "alpha", "beta"):
        for value in ("NaN", "Infinity", "-Infinity"):
            body = {"new": world.version.pk, "base": world.version2.pk, key: value}
            answers[f"{key}={value}"] = owner.post("/api/tests/", body, format="json").status_code
    assert set(answers.values()) == {400}, answers


# --- the throttle of version tests, through the version page's form -------------------------------------------------


def test_the_version_page_form_shares_the_version_test_throttle(world: World, monkeypatch: Any) -> None:
    from rest_framework.throttling import ScopedRateThrottle

    from tournaments.models import VersionTest

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"matches": "2/hour", "uploads": "20/hour"})
    body = {"new": world.version.pk, "base": world.version2.pk, "max_games": 20000}
    api = client_for(world, "owner")
    assert [api.post("/api/tests/", body, format="json").status_code for _ in range(3)] == [201, 201, 429]
    form = {"base": world.version2.pk, "d0": 0, "d1": 0.05, "alpha": 0.05, "beta": 0.05, "max_games": 20000}
    page = page_client(world, "owner")
    for _ in range(5):
        page.post(f"/versions/{world.version.pk}/test/", form)
    assert VersionTest.objects.filter(owner=world.users["owner"]).count() == 2


# --- text PostgreSQL cannot store: a NUL character inside a JSON field --------------------------------------------


NUL_CASES: dict[str, tuple[str, str, str, Any]] = {
    "ladder create, matchmaking note": ("organiser", "post", "/api/ladders/",
                                        {"name": "nul", "game": "evolution", "players_per_match": 2,
                                         "matchmaking": {"note": "a\u0000b"}}),
    "ladder patch, matchmaking note": ("organiser", "patch", "/api/ladders/{ladder}/",
                                       {"matchmaking": {"note": "a\u0000b"}}),
    "ladder create, option key": ("organiser", "post", "/api/ladders/",
                                  {"name": "nul2", "game": "evolution", "players_per_match": 2,
                                   "options": {"\u0000": 1}}),
    "tournament option value": ("organiser", "post", "/api/tournaments/",
                                {"name": "nul3", "game": "evolution", "players_per_table": 2,
                                 "entries": ["{version}", "{other}"], "options": {"deck": "short\u0000"}}),
    "version test option value": ("owner", "post", "/api/tests/",
                                  {"new": "{version}", "base": "{version2}", "options": {"deck": "\u0000"}}),
}


@pytest.mark.parametrize("case", list(NUL_CASES))
def test_a_nul_character_in_a_json_field_is_a_400(world: World, case: str) -> None:
    role, method, path, body = NUL_CASES[case]
    ids = {"{ladder}": world.ladder.pk, "{version}": world.version.pk, "{other}": world.other_version.pk,
           "{version2}": world.version2.pk}

    def fill(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return ids.get(value, value) if isinstance(value, str) else value

    for key, pk in ids.items():
        path = path.replace(key, str(pk))
    response = getattr(client_for(world, role), method)(path, fill(body), format="json")
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:200])


def test_the_upload_page_answers_a_hostile_manifest_with_its_form_not_a_500(world: World) -> None:
    data = zipped([("ludus.toml", 'language = ["cpp"]\n'), CPP])
    form = {"name": "attack", "game": "evolution", "file": SimpleUploadedFile("bot.zip", data)}
    response = page_client(world, "author").post("/upload/", form)
    assert response.status_code in (200, 400), (response.status_code, response.content[:200])


def test_the_branch_form_with_a_superscript_digit_seat_is_no_500(world: World) -> None:
    response = page_client(world, "owner").post(f"/replays/{world.finished.pk}/branch/",
                                                {"step": "1", "seat_1": "\u00b2"})
    assert response.status_code in (302, 400), (response.status_code, response.content[:200])


# --- object-level permissions: another organiser, another author ----------------------------------------------------


def test_another_organiser_changes_nothing_of_charlies_competitions(world: World) -> None:
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    from tournaments.models import Ladder, Tournament

    dave = world.users["owner"].__class__.objects.create_user("dave")
    dave.groups.add(Group.objects.get_or_create(name="organisers")[0])
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=dave).key}")
    ladder, tournament = world.ladder.pk, world.tournament.pk
    answers = {
        "ladder patch": client.patch(f"/api/ladders/{ladder}/", {"is_open": True}, format="json").status_code,
        "ladder pause": client.post(f"/api/ladders/{ladder}/pause/").status_code,
        "ladder resume": client.post(f"/api/ladders/{ladder}/resume/").status_code,
        "ladder entry": client.post(f"/api/ladders/{ladder}/entries/", {"bot_version": world.version.pk},
                                    format="json").status_code,
        "tournament patch": client.patch(f"/api/tournaments/{tournament}/", {"name": "mine"},
                                         format="json").status_code,
        "tournament start": client.post(f"/api/tournaments/{tournament}/start/").status_code,
        "tournament requeue": client.post(f"/api/tournaments/{tournament}/requeue-failed/").status_code,
        "tournament cancel": client.post(f"/api/tournaments/{tournament}/cancel/").status_code,
        "rated match": client.post("/api/matches/", {"ladder": ladder, "seats": [world.version.pk,
                                                                                 world.other_version.pk],
                                                     "rated": True}, format="json").status_code,
    }
    assert all(code in (400, 403, 404) for code in answers.values()), answers
    assert Ladder.objects.get(pk=ladder).is_open is False and Ladder.objects.get(pk=ladder).paused is False
    assert Tournament.objects.get(pk=tournament).state == "draft" and Tournament.objects.get(pk=tournament).name == \
        "evo-cup"


def test_bob_stops_no_test_of_alices_and_withdraws_no_version_of_hers(world: World) -> None:
    from tournaments.models import LadderEntry, VersionTest

    started = client_for(world, "owner").post("/api/tests/", {"new": world.version.pk, "base": world.version2.pk},
                                              format="json")
    assert started.status_code == 201
    bob = client_for(world, "author")
    assert bob.post(f"/api/tests/{started.json()['id']}/cancel/").status_code in (403, 404)
    assert VersionTest.objects.get(pk=started.json()["id"]).status == "running"
    type(world.ladder).objects.filter(pk=world.ladder.pk).update(is_open=True)
    LadderEntry.objects.get_or_create(ladder=world.ladder, bot_version=world.version)
    assert bob.delete(f"/api/ladders/{world.ladder.pk}/entries/{world.version.pk}/").status_code in (400, 403, 404)
    page = page_client(world, "author").post(f"/ladders/{world.ladder.pk}/entries/",
                                             {"bot_version": world.version.pk, "action": "withdraw"})
    assert page.status_code == 302
    assert LadderEntry.objects.get(ladder=world.ladder, bot_version=world.version).withdrawn_at is None
    assert bob.post(f"/api/ladders/{world.ladder.pk}/entries/", {"bot_version": world.version.pk},
                    format="json").status_code == 400


# --- the cost of one upload in the web process ---------------------------------------------------------------------


def dense_python_zip() -> bytes:
    """An 8 MiB main.py (the unpacked cap) that deflates 59x (under the 100x ratio cap) into a 142 KB zip."""
    import random

    rnd = random.Random(1)
    parts, size = [], 0
    while size < 8 * 2**20 - 4096:
        chunk = "1," * 60 + f"{rnd.randrange(10, 99)},"
        parts.append(chunk)
        size += len(chunk)
    return zipped([("main.py", "x=[" + "".join(parts) + "]\n")])


def test_one_upload_within_the_limits_costs_the_web_process_bounded_memory(world: World) -> None:
    import tracemalloc

    data = dense_python_zip()
    assert len(data) < 1024 * 1024
    tracemalloc.start()
    try:
        response = upload(world, "bot.zip", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code in (201, 400), response.status_code
    assert peak < 512 * 2**20, f"one {len(data)}-byte upload peaked at {peak / 2**20:.0f} MiB in the web process"


# --- JSON bodies that the parser cannot take ------------------------------------------------------------------------

DEEP = b'{"ladder": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
LONG_INT = b'{"ladder": ' + b"9" * 5000 + b', "seats": []}'


@pytest.mark.parametrize("body", [DEEP, LONG_INT], ids=["nested 100000 deep", "a 5000-digit number"])
@pytest.mark.parametrize("role,path", [("owner", "/api/matches/"), ("anonymous", "/api/auth/token/"),
                                       ("owner", "/api/tests/"), ("organiser", "/api/ladders/")])
def test_a_json_body_the_parser_cannot_take_is_a_400(world: World, role: str, path: str, body: bytes) -> None:
    response = client_for(world, role).post(path, body, content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:200])


def test_session_writes_without_a_csrf_token_are_refused(world: World) -> None:
    from django.test import Client

    from tournaments.models import VersionTest

    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(world.users["owner"])
    answers = {
        "ladder entry form": client.post(f"/ladders/{world.ladder.pk}/entries/",
                                         {"bot_version": world.version.pk, "action": "withdraw"}).status_code,
        "version test form": client.post(f"/versions/{world.version.pk}/test/",
                                         {"base": world.version2.pk, "d0": 0, "d1": 0.05, "alpha": 0.05,
                                          "beta": 0.05, "max_games": 100}).status_code,
        "branch form": client.post(f"/replays/{world.finished.pk}/branch/", {"step": "1"}).status_code,
        "upload form": client.post("/upload/", {"name": "x", "game": "evolution",
                                                "file": SimpleUploadedFile("x.py", b"x = 1\n")}).status_code,
        "api test with the session": client.post("/api/tests/", {"new": world.version.pk, "base": world.version.pk},
                                                 content_type="application/json").status_code,
        "api bot patch with the session": client.patch(f"/api/bots/{world.bot.pk}/", {"visibility": "private"},
                                                       content_type="application/json").status_code,
    }
    assert set(answers.values()) == {403}, answers
    assert not VersionTest.objects.exists()
